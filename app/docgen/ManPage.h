#pragma once
// Renders a ProgramDoc as a man page (troff -man), section 1.
#include <string>

#include "ProgramDoc.h"

namespace pipescope::docgen {

struct ManPageText {
  std::string nameLine;   ///< after "program \-" in NAME
  std::string extra;      ///< troff appended before SEE ALSO (FILES, EXAMPLES, ...), already formatted
  std::string seeAlso;    ///< "pipescope(1)"
};

std::string renderManPage(const ProgramDoc& program, const ManPageText& text);

/// Escapes text for troff: backslashes, dashes, and a leading '.' or '\''.
std::string troffEscape(const std::string& text);

}  // namespace pipescope::docgen
