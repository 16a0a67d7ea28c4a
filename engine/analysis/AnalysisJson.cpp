#include "analysis/AnalysisJson.h"

#include <nlohmann/json.hpp>

#include "config/ConfigJson.h"

namespace pipescope {

using nlohmann::json;

namespace {
std::string_view zoneKey(LimitZone z) {
  switch (z) {
    case LimitZone::SlowerThanNoOverlap: return "slower-than-no-overlap";
    case LimitZone::NoToOneDirection: return "between-no-and-one-direction";
    case LimitZone::OneDirectionToFull: return "between-one-direction-and-full";
    case LimitZone::AtFullOverlap: return "at-full-overlap";
    case LimitZone::Unknown: return "unknown";
  }
  return "unknown";
}
std::string_view relationKey(Relation r) {
  switch (r) {
    case Relation::Less: return "less";
    case Relation::Greater: return "greater";
    case Relation::About: return "about";
  }
  return "?";
}
json expectationJson(const Expectation& e, const std::vector<LessonRun>& runs) {
  return {{"metric", metricInfo(e.metric).key},
          {"run", e.run},
          {"relation", relationKey(e.relation)},
          {"against", e.against < 0 ? json(nullptr) : json(e.against)},
          {"threshold", e.threshold},
          {"margin", e.margin},
          {"claim", e.describe(runs)}};
}
}  // namespace

json limitsToJson(const Limits& l) {
  return {{"batches", l.batches},
          {"copy_engines", l.copyEngines},
          {"per_batch_ns", {{"h2d", l.perBatch.h2dNs}, {"kernel", l.perBatch.kernelNs}, {"d2h", l.perBatch.d2hNs}}},
          {"host_per_batch_ns", l.hostPerBatchNs},
          {"no_overlap_ns", l.noOverlapNs},
          {"one_direction_ns", l.oneDirectionNs},
          {"one_direction_overlaps", l.oneDirectionIsH2D ? "h2d" : "d2h"},
          {"full_overlap_ns", l.fullOverlapNs},
          {"measured_ns", l.measuredNs},
          {"position", l.position},
          {"zone", zoneKey(l.zone)},
          {"critical", toString(l.critical)},
          {"critical_sentence", l.criticalSentence},
          {"position_sentence", l.positionSentence},
          {"first_start_ns", l.firstStartNs},
          {"ideal_finish_ns", l.idealFinishNs},
          {"measured_finish_ns", l.measuredFinishNs}};
}

json waitSummaryToJson(const WaitSummary& s, const std::vector<std::string>& sentences) {
  auto causes = [](const std::array<double, kWaitCauseCount>& ns) {
    json j = json::object();
    for (int c = 0; c < kWaitCauseCount; ++c) j[std::string(keyOf(WaitCause(c)))] = ns[std::size_t(c)];
    return j;
  };
  json kinds = json::array();
  for (const auto& k : s.kinds) {
    json shares = json::object();
    for (int c = 0; c < kWaitCauseCount; ++c) shares[std::string(keyOf(WaitCause(c)))] = k.share(WaitCause(c));
    kinds.push_back({{"kind", toString(k.kind)},
                     {"ops", k.ops},
                     {"exec_ns", k.execNs},
                     {"wait_ns", causes(k.waitNs)},
                     {"share", shares},
                     {"engine", k.engineName}});
  }
  json shares = json::object();
  for (int c = 0; c < kWaitCauseCount; ++c) shares[std::string(keyOf(WaitCause(c)))] = s.share(WaitCause(c));
  return {{"exec_ns", s.execNs},
          {"wait_ns", causes(s.waitNs)},
          {"share", shares},
          {"kinds", kinds},
          {"sentences", sentences}};
}

json adviceToJson(const AdviceResult& a) {
  json items = json::array();
  for (const auto& i : a.items) {
    items.push_back({{"kind", keyOf(i.kind)},
                     {"title", i.title},
                     {"change", i.change},
                     {"speedup", i.speedup},
                     {"baseline_samples_per_s", i.baselineSamplesPerSec},
                     {"predicted_samples_per_s", i.predictedSamplesPerSec},
                     {"api_share_before", i.apiShareBefore ? json(*i.apiShareBefore) : json(nullptr)},
                     {"api_share_after", i.apiShareAfter ? json(*i.apiShareAfter) : json(nullptr)},
                     {"evidence", i.evidence},
                     {"caveat", i.caveat},
                     {"modelError", i.modelError},
                     {"per_gpu_speedup", i.perGpuSpeedup ? json(*i.perGpuSpeedup) : json(nullptr)},
                     {"sentence", i.sentence},
                     {"config", configToJson(i.config)}});
  }
  return {{"items", items},
          {"simulated_batches", a.simulatedBatches},
          {"baseline_samples_per_s", a.baselineSamplesPerSec},
          {"error", a.error.empty() ? json(nullptr) : json(a.error)}};
}

json derivedConfigToJson(const DerivedConfig& d) {
  if (!d.ok()) return {{"error", d.failure}};
  return {{"config", configToJson(d.config)},
          {"profile", d.profileName},
          {"trace_ns_per_iteration", d.traceNsPerIteration},
          {"simulated_ns_per_iteration", d.simulatedNsPerIteration},
          {"error", d.error},
          {"simulations", d.simulations},
          {"host_ns_per_iteration", d.hostNsPerIteration},
          {"kernel_ns_per_iteration", d.kernelNsPerIteration},
          {"notes", d.notes}};
}

json runAnalysisToJson(const RunAnalysis& r) {
  return {{"limits", limitsToJson(r.limits)},
          {"waits", waitSummaryToJson(r.waits, r.waitSentences)},
          {"advice", r.advice ? adviceToJson(*r.advice) : json(nullptr)},
          {"derived_config", r.derived ? derivedConfigToJson(*r.derived) : json(nullptr)},
          {"scaling", r.scaling ? scalingToJson(*r.scaling) : json(nullptr)}};
}

json multiGpuToJson(const MultiGpuMetrics& m) {
  json gpus = json::array();
  for (const GpuFigures& g : m.perGpu)
    gpus.push_back({{"device", g.device},
                    {"name", g.name},
                    {"batches", g.batches},
                    {"busy", g.busy},
                    {"compute_busy", g.computeBusy},
                    {"h2d_busy", g.h2dBusy},
                    {"d2h_busy", g.d2hBusy},
                    {"comm_busy", g.commBusy},
                    {"comm_ns", g.commNs},
                    {"exposed_comm_ns", g.exposedCommNs},
                    {"overlapped_comm_ns", g.overlappedCommNs}});
  json links = json::array();
  for (const LinkFigures& l : m.links)
    links.push_back({{"lane", l.lane},
                     {"name", l.name},
                     {"from", l.from},
                     {"to", l.to},
                     {"busy_ns", l.busyNs},
                     {"busy", l.busy},
                     {"bytes", l.bytes},
                     {"gbps_busy", l.gbpsBusy}});
  return {{"gpus", m.gpus},
          {"parallel", m.pipeline ? "pipeline" : "data"},
          {"per_gpu", gpus},
          {"links", links},
          {"comm_ns", m.commNs},
          {"exposed_comm_ns", m.exposedCommNs},
          {"overlapped_comm_ns", m.overlappedCommNs},
          {"comm_overlap", m.commOverlap},
          {"exposed_comm_fraction", m.exposedCommFraction},
          {"collectives", m.collectives},
          {"collective_bytes", m.collectiveBytes},
          {"collective_ns", m.collectiveNs},
          {"allreduce_bus_gbps", m.allreduceBusGBps},
          {"micro_batches", m.microBatches},
          {"gpipe_bubble", m.gpipeBubble},
          {"idle_compute", m.idleCompute},
          {"ideal_bound_ns", m.idealBoundNs},
          {"serial_ns", m.serialNs},
          {"critical", m.critical},
          {"critical_sentence", m.criticalSentence}};
}

json scalingToJson(const ScalingEstimate& s) {
  return {{"gpus", s.gpus},
          {"samples_per_s", s.samplesPerSec},
          {"one_gpu_samples_per_s", s.oneGpuSamplesPerSec},
          {"efficiency", s.efficiency},
          {"run_simulated", s.runSimulated},
          {"one_gpu_source", s.source},
          {"sentence", s.sentence}};
}

json comparisonToJson(const ComparisonTable& t) {
  json rows = json::array();
  for (const auto& r : t.rows) {
    json row = {{"key", r.key},
                {"label", r.label},
                {"a_text", r.aText},
                {"b_text", r.bText},
                {"difference_text", r.differenceText},
                {"better", toString(r.better)}};
    if (r.metric) {
      row["a"] = r.a;
      row["b"] = r.b;
      row["difference"] = r.difference;
      row["ratio"] = r.ratio ? json(*r.ratio) : json(nullptr);
    }
    rows.push_back(row);
  }
  return {{"a", t.aName}, {"b", t.bName}, {"rows", rows}};
}

json lessonToJson(const Lesson& l) {
  json runs = json::array();
  for (const auto& r : l.runs)
    runs.push_back({{"label", r.label},
                    {"profile", r.profile.empty() ? json(nullptr) : json(r.profile)},
                    {"config", configToJson(r.config)}});
  json choices = json::array();
  for (const auto& c : l.prediction.choices) {
    json when = json::array();
    for (const auto& e : c.when) when.push_back(expectationJson(e, l.runs));
    choices.push_back({{"text", c.text}, {"when", when}});
  }
  json expectations = json::array();
  for (const auto& e : l.expectations) expectations.push_back(expectationJson(e, l.runs));
  return {{"number", l.number},
          {"id", l.id},
          {"title", l.title},
          {"look_for", l.lookFor},
          {"prediction", {{"question", l.prediction.question}, {"choices", choices}, {"answer", l.prediction.answer}}},
          {"runs", runs},
          {"expectations", expectations}};
}

namespace {

json metricsJson(const Metrics& m) {
  json figures = json::object();
  for (const auto& info : allMetrics()) figures[std::string(info.key)] = metricValue(m, info.id);
  figures["bottleneck"] = toString(m.bottleneck);
  return figures;
}

json spreadJson(const Spread& s) { return {{"median", s.median}, {"min", s.min}, {"max", s.max}}; }

}  // namespace

json lessonOutcomeToJson(const Lesson& lesson, const LessonOutcome& o) {
  json j = lessonToJson(lesson);
  json results = json::array();
  for (std::size_t i = 0; i < o.runs.size(); ++i) {
    const MeasuredRun& m = o.runs[i];
    json reps = json::array();
    for (const Metrics& r : m.reps) reps.push_back(r.makespanNs);
    json run{{"label", lesson.runs[i].label},
             {"profile", m.profile.empty() ? json(nullptr) : json(m.profile)},
             {"device", m.device},
             {"where", m.where()},
             {"measured", m.measured},
             {"legacy", m.legacy},
             {"metrics", metricsJson(m.metrics())},
             {"makespan_ns", spreadJson(m.makespan)},
             {"repetitions_makespan_ns", reps}};
    run["predicted"] = m.predicted ? json{{"profile", o.predictionProfile}, {"metrics", metricsJson(*m.predicted)}}
                                   : json(nullptr);
    results.push_back(run);
  }
  json checks = json::array();
  for (const auto& c : o.checks)
    checks.push_back({{"claim", c.claim},
                      {"holds", c.holds()},
                      {"verdict", toString(c.verdict)},
                      {"metric", std::string(metricInfo(c.metric).key)},
                      {"value", spreadJson(c.valueSpread)},
                      {"reference", spreadJson(c.referenceSpread)}});
  j["backend"] = o.device.backend;
  j["device"] = o.device.summary();
  j["backend_note"] = o.backendNote.empty() ? json(nullptr) : json(o.backendNote);
  j["repetitions"] = o.reps;
  j["prediction_profile"] = o.predictionProfile.empty() ? json(nullptr) : json(o.predictionProfile);
  j["prediction_note"] = o.predictionNote.empty() ? json(nullptr) : json(o.predictionNote);
  j["results"] = results;
  j["checks"] = checks;
  j["observed_choice"] = o.observedChoice;
  j["numbers"] = o.numbers;
  j["error"] = o.error.empty() ? json(nullptr) : json(o.error);
  return j;
}

}  // namespace pipescope
