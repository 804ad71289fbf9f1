// `perflint calibrate`: --show prints the cached calibrations (TOML, no LibTorch needed); a measuring
// run is handed to perflint-calibrate, the LibTorch program built next to perflint.
#pragma once
#include <string>
#include <vector>

#include "cli/options.hpp"
#include "probe/calibration.hpp"

namespace perflint {

inline constexpr const char* kCalibrateProgram = "perflint-calibrate";

// Exit code: 0 done, 2 nothing to show / no LibTorch build / usage. A measuring run does not
// return (exec) unless perflint-calibrate cannot be started.
int run_calibrate_command(const Options& o);

// The readable table `--show` prints for one calibration.
std::string format_calibration_table(const probe::Calibration& c);

// The arguments perflint-calibrate gets for these options (without the program name).
std::vector<std::string> calibrate_arguments(const CalibrateOptions& c);

}  // namespace perflint
