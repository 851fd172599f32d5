#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

#include "collector/kube/cluster_state.h"

// RapidJSON forms of the object parsers, for the watcher, which parses each event once.
namespace netscore::collector {

std::optional<PodFacts> parse_pod(const rapidjson::Value& object);
std::optional<NodeFacts> parse_node(const rapidjson::Value& object, const LabelRules& rules);
// metadata.resourceVersion of any object (a bookmark's included); empty when absent.
std::string resource_version_of(const rapidjson::Value& object);

// One page of a list, parsed into a caller's document that the items point into.
struct ListPage {
  const rapidjson::Value* items = nullptr;  // an array
  std::string resource_version{};
  std::string continue_token{};  // empty on the last page
};
// nullopt: not JSON, or not an object with an `items` array.
std::optional<ListPage> parse_list_page(std::string_view body, rapidjson::Document& doc);

// One line of a watch stream, parsed into a caller's document that `object` points into.
struct WatchEvent {
  std::string_view type{};  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  const rapidjson::Value* object = nullptr;
};
// nullopt: not JSON, or without a string `type` and an object `object`.
std::optional<WatchEvent> parse_watch_event(std::string_view line, rapidjson::Document& doc);
// The HTTP status an ERROR event's Status object carries (410: the resourceVersion is too old);
// 0 when it has none.
int error_event_code(const rapidjson::Value& status);

}  // namespace netscore::collector
