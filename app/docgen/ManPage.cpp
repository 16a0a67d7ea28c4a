#include "ManPage.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace pipescope::docgen {

std::string troffEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";  // a real minus: searchable and copy-pastable in the rendered page
    else
      out += c;
  }
  std::string safe;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && (line[0] == '.' || line[0] == '\'')) line = "\\&" + line;
    safe += line + "\n";
  }
  if (!safe.empty() && (out.empty() || out.back() != '\n')) safe.pop_back();
  return safe;
}

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  return s;
}

// --help prose: plain lines flow into paragraphs; indented lines (tables, examples)
// keep their layout in no-fill blocks; blank lines separate paragraphs.
std::string renderProse(const std::string& text) {
  std::string out;
  bool inBlock = false;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const bool blank = line.find_first_not_of(' ') == std::string::npos;
    const bool indented = !blank && line[0] == ' ';
    if (blank) {
      if (inBlock) out += ".fi\n", inBlock = false;
      out += ".PP\n";
      continue;
    }
    if (indented && !inBlock) out += ".nf\n", inBlock = true;
    if (!indented && inBlock) out += ".fi\n", inBlock = false;
    out += troffEscape(line) + "\n";
  }
  if (inBlock) out += ".fi\n";
  // Collapse runs of paragraph marks and drop a leading one.
  std::string tidy;
  std::istringstream lines(out);
  std::string previous;
  for (std::string line; std::getline(lines, line);) {
    if (line == ".PP" && (previous == ".PP" || previous.empty())) continue;
    tidy += line + "\n";
    previous = line;
  }
  while (tidy.size() >= 4 && tidy.compare(tidy.size() - 4, 4, ".PP\n") == 0) tidy.erase(tidy.size() - 4);
  return tidy;
}

std::string renderOptions(const std::vector<OptionDoc>& options) {
  std::string out, group = "\x01";
  for (const auto& o : options) {
    if (o.group != group) {
      group = o.group;
      if (!group.empty()) out += ".PP\n.I " + troffEscape(group) + "\n";
    }
    out += ".TP\n";
    std::string head;
    if (!o.shortName.empty()) head += "\\fB\\-" + troffEscape(o.shortName) + "\\fR, ";
    head += "\\fB\\-\\-" + troffEscape(o.name) + "\\fR";
    if (!o.value.empty()) head += " \\fI" + troffEscape(o.value) + "\\fR";
    out += head + "\n" + troffEscape(o.help) + "\n";
  }
  return out;
}

// One synopsis line per usage form; the forms may or may not repeat the program name.
std::string synopsis(const std::string& program, const std::string& usage) {
  std::string out;
  std::istringstream forms(usage);
  for (std::string form; std::getline(forms, form);) {
    if (form.rfind(program + " ", 0) == 0) form.erase(0, program.size() + 1);
    out += (out.empty() ? "" : ".br\n") + std::string(".B ") + troffEscape(program) + "\n" + troffEscape(form) + "\n";
  }
  return out;
}

}  // namespace

std::string renderManPage(const ProgramDoc& p, const ManPageText& text) {
  std::string out;
  out += ".\\\" Generated at build time by pipescope-docgen from the program's own option definitions.\n";
  out += ".\\\" Do not edit: change the options (app/cli, app/gui) and rebuild.\n";
  out += ".TH " + upper(p.program) + " 1 \"\" \"pipescope " + p.version + "\" \"User Commands\"\n";
  out += ".SH NAME\n" + troffEscape(p.program) + " \\- " + troffEscape(text.nameLine) + "\n";
  out += ".SH SYNOPSIS\n" + synopsis(p.program, p.usage);
  for (const auto& c : p.commands) out += ".br\n" + synopsis(p.program, c.usage);
  if (!p.description.empty()) out += ".SH DESCRIPTION\n" + renderProse(p.description);
  if (!p.options.empty()) out += ".SH OPTIONS\n" + renderOptions(p.options);
  if (!p.operands.empty()) {
    out += ".SH ARGUMENTS\n";
    for (std::size_t i = 0; i < p.operands.size(); ++i)
      out += ".TP\n.I " + troffEscape(p.operands[i]) + "\n" + troffEscape(p.operandHelp[i]) + "\n";
  }
  if (!p.commands.empty()) {
    out += ".SH COMMANDS\n";
    for (const auto& c : p.commands) {
      out += ".SS \"" + troffEscape(c.name) + "\"\n" + troffEscape(c.summary) + "\n.PP\n" + synopsis(p.program, c.usage);
      if (!c.description.empty()) out += ".PP\n" + renderProse(c.description);
      if (!c.options.empty()) out += renderOptions(c.options);
      if (!c.epilogue.empty()) out += ".PP\n" + renderProse(c.epilogue);
    }
  }
  out += text.extra;
  if (!text.seeAlso.empty()) out += ".SH SEE ALSO\n" + text.seeAlso + "\n";
  return out;
}

}  // namespace pipescope::docgen
