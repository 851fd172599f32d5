#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "extender/scheduler/protocol.h"

namespace netscore::extender {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The extender protocol notes' filter request example (nodeCacheCapable: true), with the ceiling
// annotation and a repeated annotation key added.
const std::string kFilterNames = R"({
  "Pod": {"metadata": {"name": "web-7d9f8-x2kqp", "generateName": "web-7d9f8-", "namespace": "default",
    "uid": "6b1f1c52-2c1e-4c8e-9a57-0d3a4f1e9b11", "resourceVersion": "123456", "creationTimestamp": "2026-07-01T10:00:00Z",
    "labels": {"app": "web"}, "annotations": {"example.com/egress-mbps": "200", "netscore.io/max-receive-rate": "1000", "example.com/egress-mbps": "300"}},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.27", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
      "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File", "imagePullPolicy": "IfNotPresent"}],
      "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst", "serviceAccountName": "default",
      "serviceAccount": "default", "securityContext": {}, "schedulerName": "default-scheduler", "priority": 0,
      "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority"},
    "status": {"phase": "Pending", "qosClass": "Burstable"}},
  "Nodes": null,
  "NodeNames": ["node-a", "node-b", "node-c"]
})";

// §6.3 (prioritize request, nodeCacheCapable: false), creationTimestamp null as before 1.34.
const std::string kNodeA =
    R"({"metadata": {"name": "node-a", "uid": "0a9c", "resourceVersion": "98765", "creationTimestamp": null, "labels": {"kubernetes.io/hostname": "node-a"}},)"
    R"( "spec": {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24"]},)"
    R"( "status": {"capacity": {"cpu": "8"}, "conditions": [{"type": "Ready", "status": "True"}], "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}}}})";
const std::string kNodeC =
    R"({"metadata": {"name": "node-c", "uid": "77e1", "labels": {"kubernetes.io/hostname": "node-c"}},)"
    R"( "status": {"daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}}, "nodeInfo": {"osImage": "Ubuntu 24.04 LTS"}}})";
const std::string kPrioritizeNodes =
    R"({"Pod": {"metadata": {"name": "web-7d9f8-x2kqp", "namespace": "default"}, "spec": {"containers": [{"name": "web"}]}},)"
    R"( "Nodes": {"metadata": {}, "items": [)" +
    kNodeA + ", " + kNodeC + R"(]}, "NodeNames": null})";

std::optional<std::string> parse(std::string body, ExtenderArgs& args, std::string& keep) {
  keep = std::move(body);
  return parse_extender_args(keep, args);
}

std::string parse_error(std::string body) {
  ExtenderArgs args;
  auto error = parse_extender_args(body, args);
  return error ? *error : "parsed";
}

TEST(Protocol, ParsesNodeNamesRequestAndAnnotation) {
  ExtenderArgs args;
  std::string buffer;
  ASSERT_EQ(parse(kFilterNames, args, buffer), std::nullopt);
  EXPECT_TRUE(args.node_cache_capable);
  EXPECT_THAT(args.names, ElementsAre("node-a", "node-b", "node-c"));
  // Every string annotation once; a repeated key keeps its last value, as Go's decoder does.
  EXPECT_THAT(args.pod_annotations, ElementsAre(KeyValue{"example.com/egress-mbps", "300"},
                                                KeyValue{"netscore.io/max-receive-rate", "1000"}));
  EXPECT_THAT(find_value(args.pod_annotations, "netscore.io/max-receive-rate"),
              ::testing::Optional(std::string_view("1000")));
  EXPECT_EQ(find_value(args.pod_annotations, "absent"), std::nullopt);
  EXPECT_TRUE(args.node_labels.empty());
}

TEST(Protocol, TakesTheControllingOwnersUidAsTheWorkload) {
  const auto owner_of = [](const std::string& owners) {
    ExtenderArgs args;
    std::string buffer;
    const auto error = parse(R"({"Pod": {"metadata": {"name": "web-1", "ownerReferences": )" +
                                 owners + R"(}}, "NodeNames": ["n1"]})",
                             args, buffer);
    return error ? "error: " + *error : std::string(args.pod_owner_uid);
  };
  EXPECT_EQ(owner_of(R"([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f8",)"
                     R"( "uid": "rs-uid", "controller": true, "blockOwnerDeletion": true}])"),
            "rs-uid");
  // Only the controller counts, wherever it stands in the list.
  EXPECT_EQ(owner_of(R"([{"kind": "ConfigMap", "uid": "cm-uid"},)"
                     R"( {"controller": true, "uid": "job-uid", "kind": "Job"}])"),
            "job-uid");
  EXPECT_EQ(owner_of(R"([{"kind": "ReplicaSet", "uid": "rs-uid", "controller": false}])"), "");
  EXPECT_EQ(owner_of("[]"), "");
  EXPECT_EQ(owner_of("null"), "");
  EXPECT_THAT(owner_of(R"({"uid": "x"})"), HasSubstr("Pod.metadata.ownerReferences"));
}

TEST(Protocol, TakesThePodsAppNameLabel) {
  const auto app_of = [](const std::string& metadata) {
    ExtenderArgs args;
    std::string buffer;
    const auto error =
        parse(R"({"Pod": {"metadata": )" + metadata + R"(}, "NodeNames": ["n1"]})", args, buffer);
    return error ? "error: " + *error : std::string(args.pod_app_name);
  };
  EXPECT_EQ(app_of(R"({"labels": {"app": "runner", "app.kubernetes.io/name": "project-a"}})"),
            "project-a");
  EXPECT_EQ(app_of(R"({"labels": {"app": "runner"}})"), "");
  EXPECT_EQ(app_of(R"({"labels": null})"), "");
  EXPECT_EQ(app_of(R"({"labels": {"app.kubernetes.io/name": null}})"), "");
  // Go's decoder: the last duplicate wins, for the key and for the whole map.
  EXPECT_EQ(app_of(R"({"labels": {"app.kubernetes.io/name": "a", "app.kubernetes.io/name": "b"}})"),
            "b");
  EXPECT_EQ(app_of(R"({"labels": {"app.kubernetes.io/name": "a"}, "labels": {"x": "y"}})"), "");
  // The same key elsewhere is not the pod's label.
  EXPECT_EQ(app_of(R"({"annotations": {"app.kubernetes.io/name": "a"}})"), "");
  EXPECT_THAT(app_of(R"({"labels": {"app.kubernetes.io/name": 3}})"),
              HasSubstr("Pod.metadata.labels[app.kubernetes.io/name]"));
  EXPECT_THAT(app_of(R"({"labels": ["app.kubernetes.io/name"]})"),
              HasSubstr("Pod.metadata.labels"));
}

TEST(Protocol, ParsesFullNodesRequestWithSpans) {
  ExtenderArgs args;
  std::string buffer;
  ASSERT_EQ(parse(kPrioritizeNodes, args, buffer), std::nullopt);
  EXPECT_FALSE(args.node_cache_capable);
  EXPECT_THAT(args.names, ElementsAre("node-a", "node-c"));
  ASSERT_EQ(args.item_spans.size(), 2U);
  const auto span = args.item_spans[1];
  EXPECT_EQ(kPrioritizeNodes.substr(span.begin, span.end - span.begin), kNodeC);
  EXPECT_TRUE(args.pod_annotations.empty());
  ASSERT_EQ(args.label_ranges.size(), 2U);
  const auto labels = [&](std::size_t i) {
    return std::vector<KeyValue>(
        args.node_labels.begin() + static_cast<std::ptrdiff_t>(args.label_ranges[i].begin),
        args.node_labels.begin() + static_cast<std::ptrdiff_t>(args.label_ranges[i].end));
  };
  EXPECT_THAT(labels(0), ElementsAre(KeyValue{"kubernetes.io/hostname", "node-a"}));
  EXPECT_THAT(labels(1), ElementsAre(KeyValue{"kubernetes.io/hostname", "node-c"}));
}

TEST(Protocol, TopLevelKeysMatchCaseInsensitivelyAndLastDuplicateWins) {
  ExtenderArgs args;
  std::string buffer;
  ASSERT_EQ(
      parse(
          R"({"pod":{},"nodenames":["x"],"NODENAMES":["y","z"],"nodes":null,"Extra":[1,{"a":2}]})",
          args, buffer),
      std::nullopt);
  EXPECT_THAT(args.names, ElementsAre("y", "z"));
  // KELVIN SIGN folds to 'k' in Go's encoding/json, LONG S to 's'.
  ASSERT_EQ(parse("{\"Pod\":{},\"NodeName\xC5\xBF\":[\"n\"]}", args, buffer), std::nullopt);
  EXPECT_THAT(args.names, ElementsAre("n"));
  // A later null NodeNames falls back to Nodes.
  ASSERT_EQ(
      parse(
          R"({"Pod":{},"NodeNames":["x"],"Nodes":{"items":[{"metadata":{"name":"m"}}]},"NodeNames":null})",
          args, buffer),
      std::nullopt);
  EXPECT_FALSE(args.node_cache_capable);
  EXPECT_THAT(args.names, ElementsAre("m"));
}

TEST(Protocol, DecodesUnicodeEscapesIncludingSurrogatePairs) {
  ExtenderArgs args;
  std::string buffer;
  ASSERT_EQ(
      parse(
          R"({"Pod":{"metadata":{"annotations":{"a":"\u003c\u0026\u003e"}}},"NodeNames":["n\u00e9-\ud83d\ude00"]})",
          args, buffer),
      std::nullopt);
  EXPECT_THAT(args.names, ElementsAre("n\xC3\xA9-\xF0\x9F\x98\x80"));
}

TEST(Protocol, RejectsBadInputWithAClearMessage) {
  EXPECT_THAT(parse_error("{\"Pod\":{},"), HasSubstr("malformed JSON"));
  EXPECT_THAT(parse_error("[1,2]"), HasSubstr("JSON object"));
  EXPECT_THAT(parse_error(R"({"NodeNames":["a"]})"), HasSubstr("missing Pod"));
  EXPECT_THAT(parse_error(R"({"Pod":null,"NodeNames":["a"]})"), HasSubstr("missing Pod"));
  EXPECT_THAT(parse_error(R"({"Pod":{},"Nodes":null,"NodeNames":null})"),
              HasSubstr("both NodeNames and Nodes"));
  EXPECT_THAT(parse_error(R"({"Pod":{},"NodeNames":"a"})"),
              HasSubstr("NodeNames must not be a string"));
  EXPECT_THAT(parse_error(R"({"Pod":{},"NodeNames":[1]})"), HasSubstr("only strings"));
  EXPECT_THAT(parse_error(R"({"Pod":7,"NodeNames":["a"]})"), HasSubstr("Pod must not be a number"));
  EXPECT_THAT(parse_error(R"({"Pod":{},"NodeNames":["a","b","a"]})"),
              HasSubstr("duplicate node name \"a\""));
  EXPECT_THAT(parse_error(R"({"Pod":{},"NodeNames":[""]})"), HasSubstr("empty node name"));
  EXPECT_THAT(parse_error(R"({"Pod":{},"Nodes":{"items":[{"metadata":{}}]}})"),
              HasSubstr("has no metadata.name"));
  EXPECT_THAT(
      parse_error(
          R"({"Pod":{"metadata":{"annotations":{"netscore.io/max-receive-rate":5}}},"NodeNames":["a"]})"),
      HasSubstr("annotations value must not be a number"));
  EXPECT_THAT(
      parse_error(R"({"Pod":{},"Nodes":{"items":[{"metadata":{"name":"a","labels":{"x":[]}}}]}})"),
      HasSubstr("labels value must not be an array"));
  EXPECT_THAT(parse_error("{\"Pod\":{},\"NodeNames\":[\"\xff\"]}"), HasSubstr("malformed JSON"));
  // A body with any byte from 0x80 is validated whole, the strings netscore ignores included.
  EXPECT_THAT(parse_error("{\"Pod\":{\"spec\":\"\xc3\x28\"},\"NodeNames\":[\"a\"]}"),
              HasSubstr("malformed JSON"));
  EXPECT_THAT(parse_error(std::string(100000, '[')), HasSubstr("JSON object"));
  EXPECT_THAT(parse_error("{\"Pod\":{\"x\":" + std::string(100000, '[')),
              HasSubstr("nested deeper"));
}

// Found by http_request_fuzz: RapidJSON takes every continuation byte a lead byte announces, so a
// body cut inside a multi-byte sequence was read up to two bytes past its end. Here each body is
// allocated at its exact size; the fuzz preset replays the original reproducer
// (http_request_fuzz_corpus/body-cut-inside-utf8-sequence), where clang's ASan reports the
// over-read.
TEST(Protocol, BodyCutInsideAMultiByteSequenceIsMalformedAndReadOnlyWithinItself) {
  for (const char* cut : {"\xc3", "\xe2\x82", "\xf0", "\xf0\x9f", "\xf0\x9f\x98"}) {
    const std::string text = std::string(R"({"Pod":{},"NodeNames":[")") + cut;
    std::string body(text.begin(), text.end());
    ExtenderArgs args;
    const auto error = parse_extender_args(body, args);
    ASSERT_TRUE(error.has_value()) << cut;
    EXPECT_THAT(*error, HasSubstr("malformed JSON")) << cut;
  }
}

TEST(Protocol, BodyWithANulByteIsNotOneJsonText) {
  std::string body = R"({"Pod":{},"NodeNames":["a"]})";
  const std::size_t nul_at = body.size();
  body += '\0';
  body += R"({"more":1})";
  EXPECT_THAT(parse_error(body), HasSubstr("NUL byte at byte " + std::to_string(nul_at)));
}

TEST(Protocol, RejectsMoreNodesThanTheLimit) {
  std::string body = R"({"Pod":{},"NodeNames":[)";
  for (std::size_t i = 0; i <= kMaxRequestNodes; ++i)
    body += (i ? ",\"n" : "\"n") + std::to_string(i) + "\"";
  body += "]}";
  EXPECT_THAT(parse_error(body), HasSubstr("more than 65536 nodes"));
}

TEST(Protocol, WritesHostPriorityListAsBareArrayOfIntegers) {
  const std::vector<std::string_view> names = {"node-a", "node-c"};
  const std::vector<std::int64_t> scores = {7, 2};
  std::string out;
  write_host_priority_list(names, scores, out);
  EXPECT_EQ(out, R"([{"Host":"node-a","Score":7},{"Host":"node-c","Score":2}])");  // §6.4
}

TEST(Protocol, EscapesNamesThatNeedIt) {
  const std::vector<std::string_view> names = {"a\"b\\", "c\n", "plain"};
  const std::vector<std::int64_t> scores = {1, -2, 10};
  std::string out;
  write_host_priority_list(names, scores, out);
  EXPECT_EQ(
      out,
      R"([{"Host":"a\"b\\","Score":1},{"Host":"c\n","Score":-2},{"Host":"plain","Score":10}])");
}

TEST(Protocol, WritesFilterResultWithNodeNames) {
  ExtenderArgs args;
  std::string buffer;
  ASSERT_EQ(parse(kFilterNames, args, buffer), std::nullopt);
  const std::vector<std::size_t> passed = {0, 2};
  const std::vector<FailedNode> failed = {{1, "egress 9.4/10 Gbit/s, above 90% threshold"}};
  std::string out;
  write_filter_result(args, kFilterNames, passed, failed, out);
  EXPECT_EQ(
      out,
      R"({"Nodes":null,"NodeNames":["node-a","node-c"],"FailedNodes":{},"FailedAndUnresolvableNodes":{"node-b":"egress 9.4/10 Gbit/s, above 90% threshold"},"Error":""})");
}

TEST(Protocol, WritesFilterResultWithNodesCopiedFromTheRequest) {
  ExtenderArgs args;
  std::string buffer;
  ASSERT_EQ(parse(kPrioritizeNodes, args, buffer), std::nullopt);
  const std::vector<std::size_t> passed = {1};
  const std::vector<FailedNode> failed = {{0, "too busy"}};
  std::string out;
  write_filter_result(args, kPrioritizeNodes, passed, failed, out);
  EXPECT_EQ(
      out,
      R"({"Nodes":{"metadata":{},"items":[)" + kNodeC +
          R"(]},"NodeNames":null,"FailedNodes":{},"FailedAndUnresolvableNodes":{"node-a":"too busy"},"Error":""})");
}

TEST(Protocol, ErrorBodyIsEscapedJson) {
  EXPECT_EQ(error_body("bad \"x\"\n"), R"({"error":"bad \"x\"\n"})");
}

}  // namespace
}  // namespace netscore::extender
