#pragma once

#include <optional>

#include <rapidjson/document.h>

#include "collector/kube/cluster_state.h"

// RapidJSON forms of the object parsers, for the watcher, which parses each event once.
namespace netscore::collector {

std::optional<PodFacts> parse_pod(const rapidjson::Value& object);
std::optional<NodeFacts> parse_node(const rapidjson::Value& object, const LabelRules& rules);
// metadata.resourceVersion of any object (a bookmark's included); empty when absent.
std::string resource_version_of(const rapidjson::Value& object);

}  // namespace netscore::collector
