#include "extender/scheduler/protocol_args_handler.h"

namespace netscore::extender::protocol_detail {

// Go's encoding/json matches a key to a field case-insensitively with Unicode simple folding;
// for ASCII field names the only non-ASCII folds are KELVIN SIGN (U+212A) for 'k' and LONG S
// (U+017F) for 's'. `target` is the lower-case field name.
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

}  // namespace netscore::extender::protocol_detail
