// The kernel's hooks into its resident services (kernel/kernel.hpp).
#include "kernel.hpp"
#include "daemon.hpp"

namespace kernel {

void services_init() { name_daemon_init(); }

void services_poll() {
    if (name_daemon_poll()) serve_again();  // a reply sent or a message parked may let a call go on
}

}  // namespace kernel
