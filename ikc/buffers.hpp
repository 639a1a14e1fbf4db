// The buffers table: mailbox messages that arrived for a port other than
// the reader's, parked until their owner reads.
//
// A reader takes the oldest parked message for its port, so messages
// between one pair of ports come out in the order they arrived (and a
// sender's messages arrive in the order it sent them: one hardware slot per
// sender). The table holds as many messages as the slots it is given (the
// profile's ikc_buffers, from memory the kernel takes at boot); when it is
// full the kernel leaves new messages in the hardware slots, so their
// senders wait: nothing is dropped.
//
// Pure logic (no hardware access), so the host tests can check it.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace kernel::ikc {

template <class Message>
class BuffersTable {
public:
    /// Where one message is parked.
    struct Slot {
        bool used = false;
        int port = 0;
        uint64_t seq = 0;  ///< arrival order
        Message msg{};
    };

    /// A table with no slots (it parks nothing) until attach: all zero,
    /// so that it costs the kernel's image nothing.
    constexpr BuffersTable() = default;
    /// Parks into slots[0..n-1] (unused) from now on; the table was empty.
    void attach(Slot *slots, int n) {
        slots_ = slots;
        limit_ = n;
    }

    int limit() const { return limit_; }
    int count() const { return count_; }
    bool full() const { return count_ >= limit_; }
    /// Messages parked for `port`.
    int count(int port) const {
        int n = 0;
        for (int i = 0; i < limit_; ++i)
            n += slots_[i].used && slots_[i].port == port;
        return n;
    }

    /// Parks m (for port `port`); false when the table is full.
    bool park(int port, const Message &m) {
        if (full()) return false;
        for (int i = 0; i < limit_; ++i) {
            if (Slot &s = slots_[i]; !s.used) {
                s = Slot{true, port, next_seq_++, m};
                ++count_;
                return true;
            }
        }
        return false;
    }

    /// Moves the oldest message parked for `port` into out; false if none.
    bool take(int port, Message &out) {
        if (count_ == 0) return false;  // the common case: readers poll an empty table often
        Slot *oldest = nullptr;
        for (int i = 0; i < limit_; ++i)
            if (Slot &s = slots_[i]; s.used && s.port == port && (!oldest || s.seq < oldest->seq))
                oldest = &s;
        if (!oldest) return false;
        out = oldest->msg;
        oldest->used = false;
        --count_;
        return true;
    }

private:
    Slot *slots_ = nullptr;
    int limit_ = 0;
    int count_ = 0;
    uint64_t next_seq_ = 0;
};

}  // namespace kernel::ikc
