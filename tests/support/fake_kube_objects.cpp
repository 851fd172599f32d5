#include "tests/support/fake_kube_objects.h"

#include <ctime>

#include <fmt/chrono.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace netscore::testing::kube {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void write_map(Writer& w, const char* key, const StringMap& map) {
  if (map.empty()) return;  // empty maps are omitted, as omitempty does
  w.Key(key);
  w.StartObject();
  for (const auto& [k, v] : map) {
    w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
  }
  w.EndObject();
}

void write_kind(Writer& w, const char* kind, bool with_kind) {
  if (!with_kind) return;
  w.Key("kind");
  w.String(kind);
  w.Key("apiVersion");
  w.String("v1");
}

void string_field(Writer& w, const char* key, const std::string& value) {
  w.Key(key);
  w.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
}

// Opens the object and its metadata with the fields every object has; the caller writes the rest
// of the metadata and closes it.
void begin_object(Writer& w, const char* kind, bool with_kind, const std::string& name,
                  const std::string& uid, std::uint64_t resource_version, std::int64_t created_s) {
  w.StartObject();
  write_kind(w, kind, with_kind);
  w.Key("metadata");
  w.StartObject();
  string_field(w, "name", name);
  string_field(w, "uid", uid);
  string_field(w, "resourceVersion", std::to_string(resource_version));
  string_field(w, "creationTimestamp", rfc3339(created_s));
}

// "key":[{...}], the one-element lists the fakes serve; `fields` writes the element's fields.
template <class Fields>
void one_element_array(Writer& w, const char* key, Fields fields) {
  w.Key(key);
  w.StartArray();
  w.StartObject();
  fields();
  w.EndObject();
  w.EndArray();
}

StringMap read_map(const rapidjson::Value& object, const char* key) {
  StringMap out;
  const auto it = object.FindMember(key);
  if (it == object.MemberEnd() || !it->value.IsObject()) return out;
  for (const auto& m : it->value.GetObject()) {
    if (m.value.IsString()) out[m.name.GetString()] = m.value.GetString();
  }
  return out;
}

std::string read_string(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject()) return {};
  const auto it = object.FindMember(key);
  return it != object.MemberEnd() && it->value.IsString() ? it->value.GetString() : std::string();
}

const rapidjson::Value& member(const rapidjson::Value& object, const char* key) {
  static const rapidjson::Value null_value;
  if (!object.IsObject()) return null_value;
  const auto it = object.FindMember(key);
  return it == object.MemberEnd() ? null_value : it->value;
}

}  // namespace

std::string rfc3339(std::int64_t unix_seconds) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(static_cast<std::time_t>(unix_seconds)));
}

std::string to_json(const Pod& pod, bool with_kind) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  begin_object(w, "Pod", with_kind, pod.name, pod.uid, pod.resource_version, pod.created_s);
  string_field(w, "namespace", pod.ns);
  if (!pod.generate_name.empty()) string_field(w, "generateName", pod.generate_name);
  if (pod.deleting_s) {
    string_field(w, "deletionTimestamp", rfc3339(*pod.deleting_s));
    w.Key("deletionGracePeriodSeconds");
    w.Int(30);
  }
  write_map(w, "labels", pod.labels);
  write_map(w, "annotations", pod.annotations);
  if (pod.owner) {
    one_element_array(w, "ownerReferences", [&] {
      string_field(w, "apiVersion", pod.owner->api_version);
      string_field(w, "kind", pod.owner->kind);
      string_field(w, "name", pod.owner->name);
      string_field(w, "uid", pod.owner->uid);
      w.Key("controller");
      w.Bool(true);
      w.Key("blockOwnerDeletion");
      w.Bool(true);
    });
  }
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  if (!pod.node.empty()) string_field(w, "nodeName", pod.node);
  one_element_array(w, "containers", [&] {
    string_field(w, "name", "app");
    string_field(w, "image", "registry.k8s.io/pause:3.9");
  });
  w.EndObject();
  w.Key("status");
  w.StartObject();
  string_field(w, "phase", pod.phase);
  if (pod.scheduled_s) {
    one_element_array(w, "conditions", [&] {
      string_field(w, "type", "PodScheduled");
      string_field(w, "status", "True");
      w.Key("lastProbeTime");
      w.Null();
      string_field(w, "lastTransitionTime", rfc3339(*pod.scheduled_s));
    });
  }
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

std::string to_json(const Node& node, bool with_kind) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  begin_object(w, "Node", with_kind, node.name, node.uid, node.resource_version, node.created_s);
  write_map(w, "labels", node.labels);
  w.EndObject();
  w.Key("spec");
  w.StartObject();
  w.EndObject();
  w.Key("status");
  w.StartObject();
  one_element_array(w, "conditions", [&] {
    string_field(w, "type", "Ready");
    string_field(w, "status", "True");
  });
  w.EndObject();
  w.EndObject();
  return buffer.GetString();
}

std::string bookmark_object(Resource resource, std::uint64_t resource_version) {
  const std::string rv = std::to_string(resource_version);
  if (resource == Resource::pods) {
    return R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":")" + rv +
           R"(","creationTimestamp":null},"spec":{"containers":null},"status":{}})";
  }
  return R"({"kind":"Node","apiVersion":"v1","metadata":{"resourceVersion":")" + rv +
         R"(","creationTimestamp":null},"spec":{},"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":0}},"nodeInfo":{}}})";
}

std::string status_json(unsigned code, std::string_view reason, std::string_view message,
                        std::string_view continue_token) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  write_kind(w, "Status", true);
  w.Key("metadata");
  w.StartObject();
  if (!continue_token.empty()) string_field(w, "continue", std::string(continue_token));
  w.EndObject();
  string_field(w, "status", code < 300 ? "Success" : "Failure");
  if (!message.empty()) string_field(w, "message", std::string(message));
  if (!reason.empty()) string_field(w, "reason", std::string(reason));
  w.Key("code");
  w.Uint(code);
  w.EndObject();
  return buffer.GetString();
}

std::optional<std::vector<FieldTerm>> parse_field_selector(Resource resource, std::string_view text,
                                                           std::string& error) {
  std::vector<FieldTerm> terms;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view term = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    FieldTerm t;
    std::size_t op = term.find("!=");
    std::size_t op_len = 2;
    if (op != std::string_view::npos) {
      t.negated = true;
    } else if ((op = term.find("==")) == std::string_view::npos) {
      op = term.find('=');
      op_len = 1;
    }
    if (op == std::string_view::npos || op == 0) {
      error = "invalid selector: '" + std::string(term) + "'; can't understand '" +
              std::string(term) + "'";
      return std::nullopt;
    }
    t.field = std::string(term.substr(0, op));
    t.value = std::string(term.substr(op + op_len));
    const bool supported = resource == Resource::pods
                               ? (t.field == "spec.nodeName" || t.field == "status.phase" ||
                                  t.field == "metadata.name" || t.field == "metadata.namespace")
                               : t.field == "metadata.name";
    if (!supported) {
      error = "field label not supported: " + t.field;
      return std::nullopt;
    }
    terms.push_back(std::move(t));
  }
  return terms;
}

bool matches(const std::vector<FieldTerm>& selector, const Pod& pod) {
  for (const auto& t : selector) {
    const std::string& actual = t.field == "spec.nodeName"   ? pod.node
                                : t.field == "status.phase"  ? pod.phase
                                : t.field == "metadata.name" ? pod.name
                                                             : pod.ns;
    if ((actual == t.value) == t.negated) return false;
  }
  return true;
}

bool matches(const std::vector<FieldTerm>& selector, const Node& node) {
  for (const auto& t : selector) {
    if ((node.name == t.value) == t.negated) return false;
  }
  return true;
}

std::optional<Pod> pod_from_json(std::string_view body, std::string_view url_namespace,
                                 std::string& error) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    error = "the body is not a JSON object";
    return std::nullopt;
  }
  const auto& meta = member(doc, "metadata");
  Pod pod;
  pod.name = read_string(meta, "name");
  pod.ns = read_string(meta, "namespace");
  if (pod.ns.empty()) pod.ns = std::string(url_namespace);
  if (pod.name.empty()) {
    error = "metadata.name: Required value";
    return std::nullopt;
  }
  if (pod.ns != url_namespace) {
    error = "the namespace of the provided object does not match the namespace sent on the request";
    return std::nullopt;
  }
  if (meta.IsObject()) {
    pod.generate_name = read_string(meta, "generateName");
    pod.labels = read_map(meta, "labels");
    pod.annotations = read_map(meta, "annotations");
  }
  pod.node = read_string(member(doc, "spec"), "nodeName");
  const std::string phase = read_string(member(doc, "status"), "phase");
  if (!phase.empty()) pod.phase = phase;
  return pod;
}

std::optional<Binding> binding_from_json(std::string_view body, std::string& error) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    error = "the body is not a JSON object";
    return std::nullopt;
  }
  const auto& meta = member(doc, "metadata");
  const auto& target = member(doc, "target");
  Binding b;
  b.name = read_string(meta, "name");
  b.uid = read_string(meta, "uid");
  if (meta.IsObject()) b.annotations = read_map(meta, "annotations");
  b.target_kind = read_string(target, "kind");
  b.target_name = read_string(target, "name");
  return b;
}

std::optional<LabelPatch> label_patch_from_json(std::string_view body, std::string& error) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError() || !doc.IsObject()) {
    error = "the body is not a JSON object";
    return std::nullopt;
  }
  LabelPatch patch;
  const auto& labels = member(member(doc, "metadata"), "labels");
  if (!labels.IsObject()) return patch;
  for (const auto& label : labels.GetObject()) {
    const std::string key(label.name.GetString(), label.name.GetStringLength());
    if (label.value.IsNull()) {
      patch[key] = std::nullopt;
    } else if (label.value.IsString()) {
      patch[key] = std::string(label.value.GetString(), label.value.GetStringLength());
    } else {
      error = "metadata.labels." + key + ": a label value is a string";
      return std::nullopt;
    }
  }
  return patch;
}

}  // namespace netscore::testing::kube
