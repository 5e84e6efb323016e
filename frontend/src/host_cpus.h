// `seer presets --host-cpus [--refresh]`: the host CPU catalog, this machine's calibration and the
// host-time constants each catalog CPU gives (simcore/src/HOST_CPU.md).
#pragma once

namespace seer::cli {

int print_host_cpus(bool refresh);

}  // namespace seer::cli
