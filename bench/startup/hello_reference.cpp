// The reference for `pipescope-cli --version` in bench/startup_bench.cpp: the least a
// C++ program built by this project (same compiler, flags and standard library)
// costs to start, print one line and exit.
#include <iostream>

int main() {
  std::cout << "hello 0.1.0\n";
  return 0;
}
