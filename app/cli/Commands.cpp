#include "Commands.h"

namespace pipescope::cli {

std::vector<Command>& commandRegistry() {
  // A function-local static: commands register from other translation units during
  // static initialisation, in an order C++ does not fix.
  static std::vector<Command> commands;
  return commands;
}

bool registerCommand(Command command) {
  commandRegistry().push_back(std::move(command));
  return true;
}

}  // namespace pipescope::cli
