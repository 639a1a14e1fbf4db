// IKC pieces shared by mailboxes, portals and syncs.
#include "ikc/ikc.hpp"

namespace kernel::ikc {

// Port 0 is the kernels' own (job reports, ring barrier): programs may
// neither bind it nor send to it.
bool valid_port(int port) { return port >= (current_process() ? 1 : 0) && port < TS_PORTS; }

bool valid_cluster(int cluster) {
    return cluster >= 0 && cluster < static_cast<int>(hal::manifest().nclusters);
}

void mailbox_init();

void init() {
    if (!hal::noc::fabric_fits()) panic("the profile's NoC fabric region is too small");
    mailbox_init();
}

}  // namespace kernel::ikc
