// IKC pieces shared by mailboxes, portals and syncs.
#include "ikc/ikc.hpp"

namespace kernel::ikc {

bool valid_port(int port) { return port >= 0 && port < TS_PORTS; }

bool valid_cluster(int cluster) {
    return cluster >= 0 && cluster < static_cast<int>(hal::manifest().nclusters);
}

void mailbox_init();

void init() { mailbox_init(); }

}  // namespace kernel::ikc
