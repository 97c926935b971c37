#pragma once
// Helpers shared by bankcheck's SVG writers (bank maps, benchmark plots).

#include <string>

namespace bankcheck {

// `text` with &, <, >, " and ' replaced by their XML entities, for SVG text and attributes.
std::string XmlEscape(const std::string& text);

}  // namespace bankcheck
