#pragma once
// Shell completion scripts for a ProgramDoc: sub-commands, their options, the
// allowed words of choice options, and file names where a value or operand is a file.
#include <string>

#include "ProgramDoc.h"

namespace pipescope::docgen {

/// A bash script defining a completion function and registering it with `complete`.
std::string renderBashCompletion(const ProgramDoc& program);
/// A zsh completion function file (#compdef), to install as _PROGRAM in an $fpath folder.
std::string renderZshCompletion(const ProgramDoc& program);

}  // namespace pipescope::docgen
