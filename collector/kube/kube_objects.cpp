#include "collector/kube/kube_objects.h"

#include <charconv>
#include <ctime>

#include <spdlog/spdlog.h>

#include "common/pod_annotations.h"
#include "common/quantity.h"

namespace netscore::collector {
namespace {

const rapidjson::Value& member(const rapidjson::Value& object, const char* key) {
  static const rapidjson::Value null_value;
  if (!object.IsObject()) return null_value;
  const auto it = object.FindMember(key);
  return it == object.MemberEnd() ? null_value : it->value;
}

std::string_view string_of(const rapidjson::Value& value) {
  return value.IsString() ? std::string_view(value.GetString(), value.GetStringLength())
                          : std::string_view();
}

int digits(std::string_view text, std::size_t at, std::size_t n, bool& ok) {
  int value = 0;
  if (at + n > text.size()) {
    ok = false;
    return 0;
  }
  const auto [end, ec] = std::from_chars(text.data() + at, text.data() + at + n, value);
  if (ec != std::errc{} || end != text.data() + at + n) ok = false;
  return value;
}

// A Job a CronJob created is named <cronjob>-<scheduled minute since the epoch>: the CronJob's
// name, or empty when `job` is not so named. Eight digits at least, as every scheduled minute since
// 1990 has: a Job someone named "migrate-2" is a workload of its own.
std::string_view cronjob_of(std::string_view job) {
  const std::size_t dash = job.find_last_of('-');
  if (dash == std::string_view::npos || dash == 0 || job.size() - dash - 1 < 8) return {};
  const std::string_view digits = job.substr(dash + 1);
  if (digits.find_first_not_of("0123456789") != std::string_view::npos) return {};
  return job.substr(0, dash);
}

// The workload a pod belongs to, across what recreates its pods: "namespace/Kind/name" of its
// controlling owner, with a ReplicaSet named after its Deployment (name = deployment + "-" +
// pod-template-hash, as the Deployment controller names it) standing for that Deployment (a
// rolling update's new ReplicaSet runs the same workload) and a CronJob's Job for the CronJob (each
// run a new Job). A pod without a controller is named by its recommended labels
// ("namespace/label/<app.kubernetes.io/name>", else <app>), else by its generateName
// ("namespace/generateName/<prefix>"); else by the second it was created in
// ("namespace/created/<creationTimestamp>"): pods that carry nothing else and were created
// together are most likely one burst of one workload (a CI pipeline's runners, a script's
// batch), whose traffic is correlated, and as one workload they are learned and priced as one;
// apart, every one of them was a pod of no workload, priced at the mean of all such pods.
std::string workload_of(const rapidjson::Value& meta) {
  const std::string_view namespace_name = string_of(member(meta, "namespace"));
  const auto& labels = member(meta, "labels");
  const auto& owners = member(meta, "ownerReferences");
  if (owners.IsArray()) {
    for (const auto& owner : owners.GetArray()) {
      const auto& controller = member(owner, "controller");
      if (!controller.IsBool() || !controller.GetBool()) continue;
      std::string_view kind = string_of(member(owner, "kind"));
      std::string_view name = string_of(member(owner, "name"));
      if (kind.empty() || name.empty()) return {};
      const std::string_view hash = string_of(member(labels, "pod-template-hash"));
      if (kind == "ReplicaSet" && !hash.empty() && name.size() > hash.size() + 1 &&
          name.ends_with(hash) && name[name.size() - hash.size() - 1] == '-') {
        kind = "Deployment";
        name.remove_suffix(hash.size() + 1);
      } else if (const std::string_view cronjob = cronjob_of(name);
                 kind == "Job" && !cronjob.empty()) {
        kind = "CronJob";
        name = cronjob;
      }
      return workload_key(namespace_name, kind, name);
    }
  }
  for (const char* label : {kAppNameLabel.data(), "app"}) {
    const std::string_view value = string_of(member(labels, label));
    if (!value.empty()) return workload_key(namespace_name, kLabelWorkloadKind, value);
  }
  const std::string_view generate_name = string_of(member(meta, "generateName"));
  if (!generate_name.empty()) return workload_key(namespace_name, "generateName", generate_name);
  const std::string_view created = string_of(member(meta, "creationTimestamp"));
  if (!created.empty()) return workload_key(namespace_name, kCreatedWorkloadKind, created);
  return {};
}

// Bytes/s of an expected-rate annotation, or -1 when absent or unusable (a petabyte per second is
// beyond any link: such a value is a typo, not a rate).
double annotated_rate(const rapidjson::Value& annotations, std::string_view key) {
  const auto value = parse_quantity(string_of(member(annotations, key.data())));
  return value && *value < 1e15 ? *value : -1;
}

// Bytes/s of a declared bandwidth ceiling (bits per second, as the CNI bandwidth plugin reads
// kubernetes.io/{ingress,egress}-bandwidth), or -1 when absent or outside the plugin's 1k..1P: an
// invalid ceiling caps nothing.
double bandwidth_ceiling(const rapidjson::Value& annotations, std::string_view key,
                         std::string_view pod) {
  const std::string_view text = string_of(member(annotations, key.data()));
  if (text.empty()) return -1;
  const auto bits = parse_quantity(text);
  if (!bits || *bits < kMinBandwidthBits || *bits > kMaxBandwidthBits) {
    spdlog::debug("pod={} annotation={} value=\"{}\" ignored: not a bandwidth of 1k..1P bits/s",
                  pod, key, text);
    return -1;
  }
  return *bits / 8;
}

}  // namespace

std::optional<std::int64_t> parse_rfc3339_ms(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)
  bool ok = text.size() >= 20 && text[4] == '-' && text[7] == '-' &&
            (text[10] == 'T' || text[10] == 't') && text[13] == ':' && text[16] == ':';
  std::tm tm{};
  tm.tm_year = digits(text, 0, 4, ok) - 1900;
  tm.tm_mon = digits(text, 5, 2, ok) - 1;
  tm.tm_mday = digits(text, 8, 2, ok);
  tm.tm_hour = digits(text, 11, 2, ok);
  tm.tm_min = digits(text, 14, 2, ok);
  tm.tm_sec = digits(text, 17, 2, ok);
  if (!ok) return std::nullopt;
  std::size_t at = 19;
  std::int64_t ms = 0;
  if (at < text.size() && text[at] == '.') {
    std::int64_t scale = 100;
    for (++at; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, scale /= 10)
      ms += (text[at] - '0') * scale;
  }
  std::int64_t offset_s = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z') && at + 1 == text.size()) {
    // UTC
  } else if (at + 6 == text.size() && (text[at] == '+' || text[at] == '-') && text[at + 3] == ':') {
    offset_s = (digits(text, at + 1, 2, ok) * 3600 + digits(text, at + 4, 2, ok) * 60) *
               (text[at] == '+' ? 1 : -1);
    if (!ok) return std::nullopt;
  } else {
    return std::nullopt;
  }
  const std::time_t t = timegm(&tm);
  return (static_cast<std::int64_t>(t) - offset_s) * 1000 + ms;
}

std::string resource_version_of(const rapidjson::Value& object) {
  return std::string(string_of(member(member(object, "metadata"), "resourceVersion")));
}

std::optional<ListPage> parse_list_page(std::string_view body, rapidjson::Document& doc) {
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) return std::nullopt;
  const auto& items = member(doc, "items");
  if (!items.IsArray()) return std::nullopt;
  // FindMember through member(), not operator[]: a list without metadata must not trip
  // RapidJSON's assertion.
  const auto& meta = member(doc, "metadata");
  return ListPage{.items = &items,
                  .resource_version = std::string(string_of(member(meta, "resourceVersion"))),
                  .continue_token = std::string(string_of(member(meta, "continue")))};
}

std::optional<WatchEvent> parse_watch_event(std::string_view line, rapidjson::Document& doc) {
  doc.Parse(line.data(), line.size());
  if (doc.HasParseError()) return std::nullopt;
  const auto& type = member(doc, "type");
  const auto& object = member(doc, "object");
  if (!type.IsString() || !object.IsObject()) return std::nullopt;
  return WatchEvent{.type = string_of(type), .object = &object};
}

int error_event_code(const rapidjson::Value& status) {
  const auto& code = member(status, "code");
  return code.IsInt() ? code.GetInt() : 0;
}

std::optional<PodFacts> parse_pod(const rapidjson::Value& object) {
  const auto& meta = member(object, "metadata");
  PodFacts pod;
  pod.uid = std::string(string_of(member(meta, "uid")));
  if (pod.uid.empty()) return std::nullopt;
  pod.resource_version = std::string(string_of(member(meta, "resourceVersion")));
  const auto& spec = member(object, "spec");
  pod.node = std::string(string_of(member(spec, "nodeName")));
  if (const auto& host_network = member(spec, "hostNetwork"); host_network.IsBool())
    pod.host_network = host_network.GetBool();
  const std::string_view name = string_of(member(meta, "name"));
  if (!name.empty())
    pod.name = std::string(string_of(member(meta, "namespace"))) + "/" + std::string(name);
  const auto& status = member(object, "status");
  const std::string_view phase = string_of(member(status, "phase"));
  pod.terminal = phase == "Succeeded" || phase == "Failed" ||
                 !string_of(member(meta, "deletionTimestamp")).empty();
  if (const auto created = parse_rfc3339_ms(string_of(member(meta, "creationTimestamp"))))
    pod.scheduled_ms = *created;
  const auto& conditions = member(status, "conditions");
  if (conditions.IsArray()) {
    for (const auto& c : conditions.GetArray()) {
      if (string_of(member(c, "type")) != "PodScheduled" ||
          string_of(member(c, "status")) != "True")
        continue;
      if (const auto at = parse_rfc3339_ms(string_of(member(c, "lastTransitionTime"))))
        pod.scheduled_ms = *at;
    }
  }
  pod.workload = workload_of(meta);
  pod.nominated =
      string_of(member(member(meta, "labels"), kRebalanceLabel.data())) == kRebalanceLabelValue;
  const auto& annotations = member(meta, "annotations");
  pod.annotated_rate = annotated_rate(annotations, kExpectedRateAnnotation);
  pod.annotated_transmit_rate = annotated_rate(annotations, kExpectedTransmitRateAnnotation);
  pod.receive_ceiling = bandwidth_ceiling(annotations, kIngressBandwidthAnnotation, pod.name);
  pod.transmit_ceiling = bandwidth_ceiling(annotations, kEgressBandwidthAnnotation, pod.name);
  return pod;
}

std::optional<NodeFacts> parse_node(const rapidjson::Value& object, const LabelRules& rules) {
  const auto& meta = member(object, "metadata");
  NodeFacts node;
  node.name = std::string(string_of(member(meta, "name")));
  if (node.name.empty()) return std::nullopt;
  node.resource_version = std::string(string_of(member(meta, "resourceVersion")));
  std::vector<KeyValue> labels;
  const auto& map = member(meta, "labels");
  if (map.IsObject()) {
    for (const auto& m : map.GetObject())
      labels.emplace_back(string_of(m.name), string_of(m.value));
  }
  node.rule_mask = node_rule_mask(rules, labels);
  return node;
}

std::optional<PodFacts> parse_pod(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) return std::nullopt;
  return parse_pod(static_cast<const rapidjson::Value&>(doc));
}

std::optional<NodeFacts> parse_node(std::string_view json, const LabelRules& rules) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError()) return std::nullopt;
  return parse_node(static_cast<const rapidjson::Value&>(doc), rules);
}

}  // namespace netscore::collector
