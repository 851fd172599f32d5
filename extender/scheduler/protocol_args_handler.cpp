#include "extender/scheduler/protocol_args_handler.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include "common/pod_annotations.h"
#include "common/table/score_table_layout.h"

// The RapidJSON SAX handler behind parse_extender_args: one pass over an ExtenderArgs body that
// keeps only what the extender reads, with Go encoding/json's matching rules. The handler and the
// reader's instantiation share this file, so that the reader's calls into the handler inline.
namespace netscore::extender::protocol_detail {
namespace {

// What the next value is, decided by the key before it or by the enclosing array.
enum class Slot : std::uint8_t {
  other,
  pod,
  nodes,
  node_names,
  pod_meta,
  annotations,
  annotation,
  items,
  item_meta,
  item_name,
  item_labels,
  item_label,
  pod_namespace,
  pod_name,
  pod_uid,
  owner_refs,
  owner_uid,
  owner_controller,
  pod_labels,
  pod_app_name
};
// What the enclosing container is.
enum class Ctx : std::uint8_t {
  skip,
  root,
  pod,
  pod_meta,
  annotations,
  nodes,
  items,
  item,
  item_meta,
  item_labels,
  node_names,
  owner_refs,
  owner_ref,
  pod_labels
};

constexpr std::size_t kMaxDepth = 128;

// Whether `key` names the field `target` (lower case) as Go's encoding/json matches them: a key
// matches a field case-insensitively with Unicode simple folding; for ASCII field names the only
// non-ASCII folds are KELVIN SIGN (U+212A) for 'k' and LONG S (U+017F) for 's'.
bool go_fold_equal(std::string_view key, std::string_view target) {
  std::size_t k = 0;
  for (const char t : target) {
    if (k >= key.size()) return false;
    const auto c = static_cast<unsigned char>(key[k]);
    if (c < 0x80) {
      if (static_cast<char>(c | 0x20) != t || !((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))
        return false;
      ++k;
    } else if (t == 'k' && key.substr(k, 3) == "\xE2\x84\xAA") {
      k += 3;
    } else if (t == 's' && key.substr(k, 2) == "\xC5\xBF") {
      k += 2;
    } else {
      return false;
    }
  }
  return k == key.size();
}

// The field a slot holds, for error messages.
const char* describe(Slot s) {
  switch (s) {
    case Slot::pod:
      return "Pod";
    case Slot::nodes:
      return "Nodes";
    case Slot::node_names:
      return "NodeNames";
    case Slot::pod_meta:
      return "Pod.metadata";
    case Slot::annotations:
      return "Pod.metadata.annotations";
    case Slot::annotation:
      return "a Pod.metadata.annotations value";
    case Slot::items:
      return "Nodes.items";
    case Slot::item_meta:
      return "Nodes.items[].metadata";
    case Slot::item_name:
      return "Nodes.items[].metadata.name";
    case Slot::pod_namespace:
    case Slot::pod_name:
    case Slot::pod_uid:
      return "Pod.metadata namespace, name and uid";
    case Slot::item_labels:
      return "Nodes.items[].metadata.labels";
    case Slot::item_label:
      return "a Nodes.items[].metadata.labels value";
    case Slot::owner_refs:
      return "Pod.metadata.ownerReferences";
    case Slot::owner_uid:
    case Slot::owner_controller:
      return "a Pod.metadata.ownerReferences[] field";
    case Slot::pod_labels:
      return "Pod.metadata.labels";
    case Slot::pod_app_name:
      return "Pod.metadata.labels[app.kubernetes.io/name]";
    case Slot::other:
      break;
  }
  return "value";
}

class ArgsHandler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, ArgsHandler> {
 public:
  ArgsHandler(ExtenderArgs& out, rapidjson::InsituStringStream& stream)
      : out_(out), stream_(stream) {}

  bool Null() {
    switch (slot()) {
      case Slot::pod:
        pod_ = false;
        out_.pod_annotations.clear();
        out_.pod_namespace = out_.pod_name = out_.pod_uid = out_.pod_owner_uid = {};
        out_.pod_app_name = {};
        break;
      case Slot::pod_labels:
      case Slot::pod_app_name:
        out_.pod_app_name = {};
        break;
      case Slot::owner_refs:
        out_.pod_owner_uid = {};
        break;
      case Slot::pod_namespace:
      case Slot::pod_name:
      case Slot::pod_uid:
        *pod_field(slot()) = {};
        break;
      case Slot::nodes:
        nodes_ = false;
        clear_items();
        break;
      case Slot::node_names:
        node_names_ = false;
        out_.names.clear();
        break;
      case Slot::item_name:
        return fail("Nodes.items[].metadata.name must be a string");
      case Slot::annotation:
        erase(out_.pod_annotations, 0, pending_key_);
        break;
      case Slot::item_label:
        erase(out_.node_labels, item_label_begin_, pending_key_);
        break;
      default:
        if (top() == Ctx::node_names) return fail("NodeNames must contain only strings");
        break;
    }
    return true;
  }
  bool Bool(bool b) {
    if (slot() != Slot::owner_controller) return scalar("a boolean");
    owner_controller_ = b;
    return true;
  }
  bool Int(int) { return scalar("a number"); }
  bool Uint(unsigned) { return scalar("a number"); }
  bool Int64(std::int64_t) { return scalar("a number"); }
  bool Uint64(std::uint64_t) { return scalar("a number"); }
  bool Double(double) { return scalar("a number"); }
  bool RawNumber(const char*, rapidjson::SizeType, bool) { return scalar("a number"); }

  bool String(const char* s, rapidjson::SizeType n, bool) {
    const std::string_view value(s, n);
    if (top() == Ctx::node_names) return add_name(out_.names, value, "NodeNames");
    switch (slot()) {
      case Slot::item_name:
        item_name_ = value;
        return true;
      case Slot::annotation:
        upsert(out_.pod_annotations, 0, value);
        return true;
      case Slot::item_label:
        upsert(out_.node_labels, item_label_begin_, value);
        return true;
      case Slot::pod_namespace:
      case Slot::pod_name:
      case Slot::pod_uid:
        *pod_field(slot()) = value;
        return true;
      case Slot::owner_uid:
        owner_uid_ = value;
        return true;
      case Slot::pod_app_name:
        out_.pod_app_name = value;
        return true;
      case Slot::other:
      case Slot::owner_controller:
        return true;
      default:
        return fail(std::string(describe(slot())) + " must not be a string");
    }
  }

  bool StartObject() {
    if (depth_ == 0) return push(Ctx::root);
    switch (slot()) {
      case Slot::pod:
        pod_ = true;
        return push(Ctx::pod);
      case Slot::pod_meta:
        return push(Ctx::pod_meta);
      case Slot::annotations:
        return push(Ctx::annotations);
      case Slot::pod_labels:
        out_.pod_app_name = {};
        return push(Ctx::pod_labels);
      case Slot::nodes:
        nodes_ = true;
        clear_items();
        return push(Ctx::nodes);
      case Slot::item_meta:
        return push(Ctx::item_meta);
      case Slot::item_labels:
        return push(Ctx::item_labels);
      case Slot::other:
        if (top() == Ctx::items) {
          // The iterative parser reports a token before consuming it: Tell() is at '{' here, at '}'
          // in EndObject.
          item_begin_ = stream_.Tell();
          item_name_.reset();
          item_label_begin_ = out_.node_labels.size();
          return push(Ctx::item);
        }
        if (top() == Ctx::node_names) return fail("NodeNames must contain only strings");
        if (top() == Ctx::owner_refs) {
          owner_uid_ = {};
          owner_controller_ = false;
          return push(Ctx::owner_ref);
        }
        return push(Ctx::skip);
      default:
        return fail(std::string(describe(slot())) + " must not be an object");
    }
  }

  bool Key(const char* s, rapidjson::SizeType n, bool) {
    const std::string_view key(s, n);
    key_slot_ = Slot::other;
    switch (top()) {
      case Ctx::root:
        if (go_fold_equal(key, "pod"))
          key_slot_ = Slot::pod;
        else if (go_fold_equal(key, "nodes"))
          key_slot_ = Slot::nodes;
        else if (go_fold_equal(key, "nodenames"))
          key_slot_ = Slot::node_names;
        break;
      case Ctx::pod:
        if (key == "metadata") key_slot_ = Slot::pod_meta;
        break;
      case Ctx::pod_meta:
        if (key == "annotations")
          key_slot_ = Slot::annotations;
        else if (key == "namespace")
          key_slot_ = Slot::pod_namespace;
        else if (key == "name")
          key_slot_ = Slot::pod_name;
        else if (key == "uid")
          key_slot_ = Slot::pod_uid;
        else if (key == "ownerReferences")
          key_slot_ = Slot::owner_refs;
        else if (key == "labels")
          key_slot_ = Slot::pod_labels;
        break;
      case Ctx::pod_labels:
        if (key == kAppNameLabel) key_slot_ = Slot::pod_app_name;
        break;
      case Ctx::owner_ref:
        if (key == "uid")
          key_slot_ = Slot::owner_uid;
        else if (key == "controller")
          key_slot_ = Slot::owner_controller;
        break;
      case Ctx::annotations:
        key_slot_ = Slot::annotation;
        pending_key_ = key;
        break;
      case Ctx::nodes:
        if (key == "items") key_slot_ = Slot::items;
        break;
      case Ctx::item:
        if (key == "metadata") key_slot_ = Slot::item_meta;
        break;
      case Ctx::item_meta:
        if (key == "name")
          key_slot_ = Slot::item_name;
        else if (key == "labels")
          key_slot_ = Slot::item_labels;
        break;
      case Ctx::item_labels:
        key_slot_ = Slot::item_label;
        pending_key_ = key;
        break;
      default:
        break;
    }
    return true;
  }

  bool EndObject(rapidjson::SizeType) {
    if (top() == Ctx::item) {
      if (!item_name_)
        return fail("Nodes.items[" + std::to_string(item_names_.size()) + "] has no metadata.name");
      if (!add_name(item_names_, *item_name_, "Nodes.items")) return false;
      out_.item_spans.push_back({item_begin_, stream_.Tell() + 1});
      out_.label_ranges.push_back({item_label_begin_, out_.node_labels.size()});
    }
    if (top() == Ctx::owner_ref && owner_controller_ && !owner_uid_.empty())
      out_.pod_owner_uid = owner_uid_;
    return pop();
  }

  bool StartArray() {
    if (depth_ == 0) return fail("the request must be a JSON object (ExtenderArgs)");
    switch (slot()) {
      case Slot::node_names:
        node_names_ = true;
        out_.names.clear();
        return push(Ctx::node_names);
      case Slot::items:
        clear_items();
        return push(Ctx::items);
      case Slot::owner_refs:
        out_.pod_owner_uid = {};
        return push(Ctx::owner_refs);
      case Slot::other:
        if (top() == Ctx::node_names) return fail("NodeNames must contain only strings");
        if (top() == Ctx::items) return fail("Nodes.items must contain only objects");
        return push(Ctx::skip);
      default:
        return fail(std::string(describe(slot())) + " must not be an array");
    }
  }
  bool EndArray(rapidjson::SizeType) { return pop(); }

  // Called after a successful parse: picks the node list the way the protocol says.
  bool finish() {
    if (!pod_) return fail("missing Pod");
    if (node_names_) {
      out_.node_cache_capable = true;
      out_.item_spans.clear();
      out_.node_labels.clear();
      out_.label_ranges.clear();
    } else if (nodes_) {
      out_.node_cache_capable = false;
      out_.names = std::move(item_names_);
    } else {
      return fail("both NodeNames and Nodes are null or missing");
    }
    return check_unique();
  }

  const std::string& error() const { return error_; }

 private:
  Ctx top() const { return depth_ == 0 ? Ctx::skip : stack_[depth_ - 1]; }
  std::string_view* pod_field(Slot s) {
    return s == Slot::pod_namespace ? &out_.pod_namespace
           : s == Slot::pod_name    ? &out_.pod_name
                                    : &out_.pod_uid;
  }
  Slot slot() const {
    const Ctx t = top();
    if (t == Ctx::items || t == Ctx::node_names || t == Ctx::skip) return Slot::other;
    return key_slot_;
  }
  bool scalar(const char* what) {
    if (top() == Ctx::node_names) return fail("NodeNames must contain only strings");
    if (top() == Ctx::items) return fail("Nodes.items must contain only objects");
    const Slot s = slot();
    if (s == Slot::other) return true;
    return fail(std::string(describe(s)) + " must not be " + what);
  }
  void clear_items() {
    item_names_.clear();
    out_.item_spans.clear();
    out_.node_labels.clear();
    out_.label_ranges.clear();
  }
  // Go decodes a repeated map key by overwriting: the pairs from `from` on hold each key once.
  void upsert(std::vector<KeyValue>& pairs, std::size_t from, std::string_view value) {
    for (std::size_t i = from; i < pairs.size(); ++i) {
      if (pairs[i].first == pending_key_) {
        pairs[i].second = value;
        return;
      }
    }
    pairs.emplace_back(pending_key_, value);
  }
  static void erase(std::vector<KeyValue>& pairs, std::size_t from, std::string_view key) {
    const auto begin = pairs.begin() + static_cast<std::ptrdiff_t>(from);
    pairs.erase(
        std::remove_if(begin, pairs.end(), [&](const KeyValue& kv) { return kv.first == key; }),
        pairs.end());
  }
  bool push(Ctx c) {
    if (depth_ == kMaxDepth) return fail("JSON nested deeper than " + std::to_string(kMaxDepth));
    stack_[depth_++] = c;
    key_slot_ = Slot::other;
    return true;
  }
  bool pop() {
    --depth_;
    key_slot_ = Slot::other;
    return true;
  }
  bool add_name(std::vector<std::string_view>& names, std::string_view name, const char* field) {
    if (name.empty()) return fail(std::string(field) + " contains an empty node name");
    if (names.size() == kMaxRequestNodes) {
      return fail(std::string(field) + " has more than " + std::to_string(kMaxRequestNodes) +
                  " nodes");
    }
    names.push_back(name);
    return true;
  }
  // Open addressing over the names' hashes: linear in the request, no per-name allocation.
  bool check_unique() {
    const auto& names = out_.names;
    auto& hashes = out_.name_hashes;
    hashes.resize(names.size());
    std::size_t slots = 16;
    while (slots < 2 * names.size()) slots <<= 1;
    std::vector<std::uint32_t> table(slots, 0);
    for (std::size_t i = 0; i < names.size(); ++i) {
      hashes[i] = shm::name_hash(names[i]);
      for (std::size_t pos = hashes[i] & (slots - 1);; pos = (pos + 1) & (slots - 1)) {
        if (table[pos] == 0) {
          table[pos] = static_cast<std::uint32_t>(i + 1);
          break;
        }
        if (names[table[pos] - 1] == names[i])
          return fail("duplicate node name \"" + std::string(names[i]) + "\"");
      }
    }
    return true;
  }
  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  ExtenderArgs& out_;
  rapidjson::InsituStringStream& stream_;
  std::array<Ctx, kMaxDepth> stack_{};
  std::size_t depth_ = 0;
  Slot key_slot_ = Slot::other;
  bool pod_ = false;
  bool nodes_ = false;
  bool node_names_ = false;
  std::vector<std::string_view> item_names_;
  std::optional<std::string_view> item_name_;
  std::size_t item_begin_ = 0;
  std::size_t item_label_begin_ = 0;
  std::string_view pending_key_;
  std::string_view owner_uid_;
  bool owner_controller_ = false;
  std::string error_;
};

template <unsigned kFlags>
rapidjson::ParseResult parse(rapidjson::InsituStringStream& stream, ArgsHandler& handler) {
  rapidjson::Reader reader;
  return reader.Parse<kFlags>(stream, handler);
}

}  // namespace

std::optional<std::string> read_extender_args(rapidjson::InsituStringStream& stream,
                                              bool validate_encoding, ExtenderArgs& out) {
  // Iterative: a hostile 1e6-deep nesting must not recurse on the stack.
  constexpr unsigned kFlags = rapidjson::kParseInsituFlag | rapidjson::kParseIterativeFlag;
  ArgsHandler handler(out, stream);
  const rapidjson::ParseResult result =
      validate_encoding ? parse<kFlags | rapidjson::kParseValidateEncodingFlag>(stream, handler)
                        : parse<kFlags>(stream, handler);
  if (!result) {
    if (!handler.error().empty()) return handler.error();
    return std::string("malformed JSON at byte ") + std::to_string(result.Offset()) + ": " +
           rapidjson::GetParseError_En(result.Code());
  }
  if (!handler.finish()) return handler.error();
  return std::nullopt;
}

}  // namespace netscore::extender::protocol_detail
