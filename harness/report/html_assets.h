#pragma once
// The page's script and style sheet (report/html/page.js and page.css),
// embedded at build time by CMake (report/html/assets.cpp.in).
namespace soapbench::html_assets {
extern const char* const kPageJs;
extern const char* const kPageCss;
}  // namespace soapbench::html_assets
