// Prints every documented NETSCORE_* variable of both binaries, and the names no longer current, as
// JSON, straight from netscore::documented_variables and retired_variables: the single source the
// configuration reference and the manifest tests are checked against, so a renamed or retired
// variable, a changed default or tier cannot drift.
#include <cstdio>
#include <string>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/config.h"

namespace {

void write_component(rapidjson::Writer<rapidjson::StringBuffer>& out, const char* key,
                     netscore::Component component) {
  out.Key(key);
  out.StartArray();
  for (const netscore::VariableDoc& doc : netscore::documented_variables(component)) {
    out.StartObject();
    out.Key("env");
    out.String(doc.env);
    out.Key("flag");
    out.String(doc.flag);
    out.Key("default");
    out.String(doc.default_value);
    out.Key("help");
    out.String(doc.help);
    out.Key("when");
    out.String(doc.when);
    out.Key("essential");
    out.Bool(doc.essential);
    out.EndObject();
  }
  out.EndArray();
}

}  // namespace

int main() {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> out(buffer);
  out.StartObject();
  write_component(out, "collector", netscore::Component::collector);
  write_component(out, "extender", netscore::Component::extender);
  out.Key("retired");
  out.StartArray();
  for (const netscore::RetiredDoc& doc : netscore::retired_variables()) {
    out.StartObject();
    out.Key("env");
    out.String(doc.env);
    out.Key("current");
    out.String(doc.current);
    out.Key("rule");
    out.String(doc.rule);
    out.EndObject();
  }
  out.EndArray();
  out.EndObject();
  std::puts(buffer.GetString());
  return 0;
}
