#pragma once

#include <string>
#include <string_view>

// Text placed into HTML or SVG (XML) markup: & < > " ' as character references, valid in both
// and inside attribute values as well as element content.
namespace netscore {

inline void append_markup_escaped(std::string_view text, std::string& out) {
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
}

}  // namespace netscore
