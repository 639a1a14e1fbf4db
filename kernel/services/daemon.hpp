// The local name daemon of a compute cluster, kernel-resident (daemon.cpp).
#pragma once

namespace kernel {

/// On a compute cluster, creates the daemon's mailbox (port
/// TS_PORT_NAME_DAEMON, owned by the kernel); elsewhere does nothing.
/// Master only, at boot, before any program runs.
void name_daemon_init();
/// One step of the daemon: takes the messages that arrived, sends what the
/// receivers have room for, and never waits. Master only, in kernel context
/// (no call being served). True when it took or sent anything.
bool name_daemon_poll();

}  // namespace kernel
