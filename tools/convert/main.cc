// normrt-convert: see convert_cli.h (and --help).
#include <string>
#include <vector>

#include "tools/convert/convert_cli.h"

int main(int argc, char** argv) {
  return normrt::run_convert_cli(std::vector<std::string>(argv + 1, argv + argc));
}
