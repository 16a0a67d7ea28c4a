// A pipescope-trace-json file's ops are read by the field names its "op_fields"
// declares, never by position regardless: fields in another order are read right,
// fewer fields get their documented defaults, and a declaration that cannot be read
// (a required field missing, an unknown or repeated name, one that comes after the
// ops in another order, none at all) is refused with the file and the field named.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "TraceFileTestSupport.h"
#include "io/TraceFileError.h"
#include "io/TraceFiles.h"
#include "io/TraceJsonWriter.h"

namespace pipescope {
namespace {

using nlohmann::json;
using namespace filetest;

json written(const Trace& t) {
  std::stringstream s;
  writeTraceJson(t, s);
  return json::parse(s.str());
}

// Keeps the fields `names`, in that order, in the declaration and in every op.
json withFields(json file, const std::vector<std::string>& names) {
  const auto declared = file["op_fields"].get<std::vector<std::string>>();
  std::vector<std::size_t> from;
  for (const auto& n : names)
    from.push_back(std::size_t(std::find(declared.begin(), declared.end(), n) - declared.begin()));
  for (auto& op : file["ops"]) {
    json picked = json::array();
    for (std::size_t i : from) picked.push_back(op[i]);
    op = picked;
  }
  file["op_fields"] = names;
  return file;
}

std::shared_ptr<Trace> load(const json& file) { return loadTraceFromBytes(file.dump(1), "fields.json"); }

// The error text of a file that must be refused ("" if it loaded).
std::string refusal(const std::string& text) {
  try {
    loadTraceFromBytes(text, "fields.json");
  } catch (const TraceFileError& e) {
    return e.what();
  }
  return "";
}

TEST(TraceJsonFields, FieldsInAnotherOrderAreReadByName) {
  auto trace = makeSimTrace(3);
  json file = written(*trace);
  auto names = file["op_fields"].get<std::vector<std::string>>();
  std::reverse(names.begin(), names.end());
  expectSameTrace(*trace, *load(withFields(file, names)));
}

TEST(TraceJsonFields, FewerFieldsGetTheirDefaults) {
  auto trace = makeSimTrace(3);
  const auto loaded = load(withFields(written(*trace), {"end", "lane", "kind", "start"}));
  std::vector<Op> a, b;
  trace->ops().snapshot().forEach([&](const Op& op) { a.push_back(op); });
  loaded->ops().snapshot().forEach([&](const Op& op) { b.push_back(op); });
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(b[i].kind, a[i].kind);
    EXPECT_EQ(b[i].lane, a[i].lane);
    EXPECT_EQ(b[i].start, a[i].start);
    EXPECT_EQ(b[i].end, a[i].end);
    EXPECT_EQ(b[i].batch, kNoBatch);
    EXPECT_EQ(b[i].stream, kNoStream);
    EXPECT_EQ(b[i].engineLane, kNoLane);
    EXPECT_EQ(b[i].bytes, 0u);
    EXPECT_EQ(b[i].submit, a[i].start) << "no wait is recorded, none is invented";
    EXPECT_EQ(b[i].ready, a[i].start);
  }
  // A declared ready without submit: submitted when it was ready.
  const auto ready = load(withFields(written(*trace), {"kind", "lane", "ready", "start", "end"}));
  ready->ops().snapshot().forEach([&](const Op& op) { EXPECT_EQ(op.submit, op.ready); });
}

TEST(TraceJsonFields, ADeclarationThatCannotBeReadIsRefusedNamingTheField) {
  auto trace = makeSimTrace(2);
  const json file = written(*trace);
  auto names = file["op_fields"].get<std::vector<std::string>>();
  struct Case {
    const char* what;
    std::string text;
    const char* expected;
  };
  json unknown = file;
  unknown["op_fields"][1] = "batch_index";
  json twice = file;
  twice["op_fields"][2] = "batch";
  json notStrings = file;
  notStrings["op_fields"][0] = 3;
  json none = file;
  none.erase("op_fields");
  // "op_fields" after "ops": the writer puts it first, so move it by hand.
  auto afterOps = [&](const json& f) {
    json head = f;
    head.erase("op_fields");
    std::string text = head.dump(1);
    text.erase(text.find_last_of('}'));
    return text + ",\n \"op_fields\": " + f["op_fields"].dump() + "\n}\n";
  };
  json longer = withFields(file, {"kind", "lane", "start", "end", "bytes"});
  json shorter = longer;
  longer["ops"][0].push_back(1);
  shorter["ops"][0].erase(4);
  auto swapped = names;
  std::swap(swapped[9], swapped[10]);  // start and end
  const std::vector<Case> cases{
      {"a required field missing", withFields(file, {"kind", "lane", "end"}).dump(), "lacks \"start\""},
      {"the kind missing", withFields(file, {"lane", "start", "end"}).dump(), "lacks \"kind\""},
      {"an unknown name", unknown.dump(), "unknown op field \"batch_index\""},
      {"a name twice", twice.dump(), "names \"batch\" twice"},
      {"not names", notStrings.dump(), "expected an array of field names"},
      {"no declaration", none.dump(), "missing field 'op_fields'"},
      {"declared after the ops in another order", afterOps(withFields(file, swapped)),
       "'op_fields' comes after \"ops\" and declares another order"},
      {"an op with more values than declared", longer.dump(), "more than 5 fields (\"op_fields\" declares 5)"},
      {"an op with fewer values than declared", shorter.dump(), "expected 5 fields (as \"op_fields\" declares), got 4"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const std::string error = refusal(c.text);
    EXPECT_NE(error.find(c.expected), std::string::npos) << "got: " << error;
    EXPECT_NE(error.find("fields.json"), std::string::npos) << "names the file: " << error;
    EXPECT_NE(error.find("op_fields"), std::string::npos) << "names the field: " << error;
  }
  // Declared twice, differently: the ops were read by the first, the second disagrees.
  const std::string twiceDeclared =
      afterOps(withFields(file, swapped)).replace(1, 0, "\"op_fields\": " + json(names).dump() + ",");
  const std::string error = refusal(twiceDeclared);
  EXPECT_NE(error.find("'op_fields' is given twice"), std::string::npos) << error;
  // After the ops in version 1's own order: nothing was misread.
  expectSameTrace(*trace, *loadTraceFromBytes(afterOps(file), "fields.json"));
}

TEST(TraceJsonFields, AValueNamesTheFieldItWasMeantFor) {
  auto trace = makeSimTrace(2);
  json file = withFields(written(*trace), {"start", "end", "lane", "kind"});
  file["ops"][0][2] = "stream 0";
  const std::string error = refusal(file.dump());
  EXPECT_NE(error.find("op 0"), std::string::npos) << error;
  EXPECT_NE(error.find("field 2 (lane): expected an integer, got a string"), std::string::npos) << error;
}

}  // namespace
}  // namespace pipescope
