#include "common/label_rules.h"

#include <gtest/gtest.h>

#include "common/config.h"

namespace netscore {
namespace {

TEST(LabelRules, ParsesTheSpaceCloudRuleAndSeveralSeparatedBySemicolons) {
  const LabelRules r = parse_label_rules("type=space:kubernetes.io/role=edge; tier=db:disk=ssd;");
  ASSERT_EQ(r.rules.size(), 2U);
  EXPECT_EQ(r.rules[0].pod_key, "type");
  EXPECT_EQ(r.rules[0].pod_value, "space");
  EXPECT_EQ(r.rules[0].node_key, "kubernetes.io/role");
  EXPECT_EQ(r.rules[0].node_value, "edge");
  EXPECT_EQ(r.rules[1].pod_key, "tier") << "spaces around a rule are not part of it";
  EXPECT_THROW(parse_label_rules("type =space:role=edge"), LabelRuleError)
      << "inside a rule they are";
}

TEST(LabelRules, RejectsMalformedRulesSayingWhich) {
  EXPECT_THROW(parse_label_rules("type=space"), LabelRuleError);
  EXPECT_THROW(parse_label_rules("type=space:role"), LabelRuleError);
  EXPECT_THROW(parse_label_rules("type:role=edge"), LabelRuleError);
  EXPECT_THROW(parse_label_rules("a=b:c=d:e=f"), LabelRuleError);
  EXPECT_THROW(parse_label_rules("=space:role=edge"), LabelRuleError);
  EXPECT_THROW(parse_label_rules("type=space:Bad_Prefix/role=edge"), LabelRuleError);
  // A key's prefix is a DNS subdomain as a node name is: each part alphanumeric at both ends.
  EXPECT_THROW(parse_label_rules("type=space:example..io/role=edge"), LabelRuleError);
  EXPECT_THROW(parse_label_rules("type=space:example-.io/role=edge"), LabelRuleError);
  EXPECT_THROW(parse_label_rules("type=space:role=-edge"), LabelRuleError);
  try {
    parse_label_rules("a=b:c=d;x=y:zz");
    FAIL();
  } catch (const LabelRuleError& e) {
    EXPECT_NE(std::string(e.what()).find("rule 2"), std::string::npos) << e.what();
  }
  std::string many;
  for (int i = 0; i < 65; ++i) many += "a=" + std::to_string(i) + ":b=c;";
  EXPECT_THROW(parse_label_rules(many), LabelRuleError);
}

TEST(LabelRules, EmptyTextMeansNoRulesAndHashZero) {
  const LabelRules r = parse_label_rules("");
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(r.hash, 0U);
}

TEST(LabelRules, HashDependsOnEveryPartAndItsBoundaries) {
  const auto h = [](std::string_view t) { return parse_label_rules(t).hash; };
  EXPECT_EQ(h("a=b:c=d"), h("a=b:c=d"));
  EXPECT_NE(h("a=b:c=d"), h("a=b:c=e"));
  EXPECT_NE(h("ab=c:d=e"), h("a=bc:d=e"));
  EXPECT_NE(h("a=b:c=d;e=f:g=h"), h("e=f:g=h;a=b:c=d")) << "bit i is rule i: order matters";
}

TEST(LabelRules, MasksSayWhichRulesAPodNeedsAndANodeMeets) {
  const LabelRules r = parse_label_rules("type=space:kubernetes.io/role=edge;tier=db:disk=ssd");
  const KeyValue edge[] = {{"kubernetes.io/role", "edge"}, {"disk", "hdd"}};
  const KeyValue both[] = {{"kubernetes.io/role", "edge"}, {"disk", "ssd"}};
  const KeyValue space_pod[] = {{"type", "space"}};
  const KeyValue db_space_pod[] = {{"tier", "db"}, {"type", "space"}};
  const KeyValue other_pod[] = {{"type", "ground"}};
  EXPECT_EQ(node_rule_mask(r, edge), 1U);
  EXPECT_EQ(node_rule_mask(r, both), 3U);
  EXPECT_EQ(pod_rule_mask(r, space_pod), 1U);
  EXPECT_EQ(pod_rule_mask(r, db_space_pod), 3U);
  EXPECT_EQ(pod_rule_mask(r, other_pod), 0U);
  EXPECT_EQ(first_unmet_rule(3U, node_rule_mask(r, edge)), 1);
  EXPECT_EQ(first_unmet_rule(1U, node_rule_mask(r, edge)), -1);
  EXPECT_EQ(first_unmet_rule(0U, 0U), -1);
  EXPECT_EQ(describe_rule(r.rules[0]),
            "pods annotated type=space need nodes labelled kubernetes.io/role=edge");
}

TEST(LabelRules, ConfigNamesTheVariableOnABadRule) {
  try {
    load_config(Component::extender, {}, {{"NETSCORE_LABEL_RULES", "type=space"}});
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("NETSCORE_LABEL_RULES"), std::string::npos) << e.what();
  }
  const Config c = load_config(Component::collector, {},
                               {{"NETSCORE_LABEL_RULES", "type=space:kubernetes.io/role=edge"}});
  EXPECT_EQ(c.label_rules.rules.size(), 1U);
}

}  // namespace
}  // namespace netscore
