#pragma once

#include <string>
#include <string_view>

#include "extender/views/table_view.h"

// GET /table as one self-contained HTML page for people: no scripts, fonts, images or external
// styles, so it renders under kHtmlCsp. Pure functions: thread-safe.
namespace netscore::extender {

// Nothing may load; inline styles only. A meta refresh is a navigation, which CSP does not govern.
inline constexpr std::string_view kHtmlCsp =
    "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'";

// True when the Accept header asks for text/html (what a browser sends).
bool prefers_html(std::string_view accept);

// `refresh_seconds` > 0 adds <meta http-equiv="refresh">. Every string from the table, the
// collector or a request is HTML-escaped.
std::string render_table_html(const TableView& view, unsigned refresh_seconds);

}  // namespace netscore::extender
