// Groups: the per-rank table and the MPI_Group_* calls (MPI 3.1 section
// 6.3).
#include "env/call.hpp"
#include "group.hpp"

#include <stdlib.h>

#include "env/errors.hpp"
#include "common/handles.hpp"
#include "common/slot_table.hpp"
#include "env/state.hpp"
#include <lwmpi/rank_local.hpp>
#include <lwmpi/text.hpp>

using namespace lwmpi;

namespace lwmpi {

namespace {

constexpr int empty_index = handle_index(MPI_GROUP_EMPTY);
constexpr int first_user = empty_index + 1;
constexpr int max_groups = 4096;  // per rank, MPI_GROUP_EMPTY aside (mpi.h)

constexpr GroupData empty_group{};

// The group at handle index i (from MPI_Group_* until MPI_Group_free or
// MPI_Finalize).
thread_local util::RankLocal<SlotTable<GroupData, first_user + max_groups>> t_groups;

// The table index of group `h`, or -1 when it names no group.
int index_of(MPI_Group h) {
    const int i = table_index(h, HandleKind::group, first_user, first_user + max_groups);
    return t_groups.get().at(i) ? i : -1;
}

bool contains(const GroupData &g, int world) { return group_rank_of(g, world) != MPI_UNDEFINED; }

void append(GroupData &g, int world) { g.world[g.size++] = static_cast<int16_t>(world); }

}  // namespace

const GroupData *group_get(MPI_Group h) {
    if (h == MPI_GROUP_EMPTY) return &empty_group;
    return t_groups.get().at(index_of(h));
}

int group_new(const GroupData &g, MPI_Group *out) {
    int i;
    if (int e = t_groups.get().add(first_user, g, &i)) return e;
    *out = make_handle(HandleKind::group, i);
    return MPI_SUCCESS;
}

void group_finalize() { t_groups.get().clear(); }

int group_rank_of(const GroupData &g, int world) {
    for (int r = 0; r < g.size; ++r)
        if (g.world[r] == world) return r;
    return MPI_UNDEFINED;
}

namespace {

// Entry of every MPI_Group_* call: MPI is active and every handle in
// `groups` names a group.
template <typename... G>
int enter_groups(const Call &call, G... groups) {
    if (int e = call.active()) return e;
    if (!(group_get(groups) && ...)) return call.fail(MPI_ERR_GROUP);
    return MPI_SUCCESS;
}

// Hands out the group built by a constructor (section 6.3.2):
// MPI_GROUP_EMPTY when it has no members, else a new handle.
int give(const Call &call, const GroupData &g, MPI_Group *out) {
    if (g.size == 0) {
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    if (group_new(g, out)) return call.fail(MPI_ERR_NO_MEM, "too many groups");
    return MPI_SUCCESS;
}

// Raises MPI_ERR_RANK for `rank`, not a rank of a group of `size`.
int raise_rank(const Call &call, int rank, int size) {
    char why[80];
    TextBuilder(why, sizeof why)
        .put("rank ")
        .put_int(rank)
        .put("; the group has ")
        .put_int(size)
        .put(size == 1 ? " rank" : " ranks");
    return call.fail(MPI_ERR_RANK, why);
}

// Ranks of a group chosen by MPI_Group_incl/excl (in the order given) or
// MPI_Group_range_incl/excl (in the order of the ranges): each a rank of
// the group and none twice (section 6.3.2).
class Selection {
public:
    explicit Selection(const GroupData &g) : group_(g) {}

    /// Adds group rank r; MPI_ERR_RANK (raised) when it is not a rank of
    /// the group or was chosen already.
    int add(const Call &call, int r) {
        if (r < 0 || r >= group_.size) return raise_rank(call, r, group_.size);
        if (chosen_[r]) {
            char why[48];
            TextBuilder(why, sizeof why).put("rank ").put_int(r).put(" given twice");
            return call.fail(MPI_ERR_RANK, why);
        }
        chosen_[r] = true;
        order_[n_++] = static_cast<int16_t>(r);
        return MPI_SUCCESS;
    }

    /// The chosen ranks in the order they were added (incl).
    GroupData included() const {
        GroupData g{};
        for (int k = 0; k < n_; ++k)
            append(g, group_.world[order_[k]]);
        return g;
    }

    /// The ranks not chosen, in the group's order (excl).
    GroupData excluded() const {
        GroupData g{};
        for (int r = 0; r < group_.size; ++r)
            if (!chosen_[r]) append(g, group_.world[r]);
        return g;
    }

private:
    const GroupData &group_;
    bool chosen_[util::max_ranks] = {};
    int16_t order_[util::max_ranks] = {};
    int n_ = 0;
};

// Selects the `n` ranks of MPI_Group_incl or MPI_Group_excl.
int select_ranks(const Call &call, Selection &s, int n, const int ranks[]) {
    if (n < 0 || (n > 0 && !ranks)) return call.fail(MPI_ERR_ARG);
    for (int k = 0; k < n; ++k)
        if (int e = s.add(call, ranks[k])) return e;
    return MPI_SUCCESS;
}

// Selects the ranks of the `n` triplets (first, last, stride) of
// MPI_Group_range_incl or MPI_Group_range_excl: first, first + stride, ...
// up to last. A zero stride, or one that moves away from last, is
// MPI_ERR_ARG; every rank reached must be valid and new (MPI_ERR_RANK).
int select_ranges(const Call &call, Selection &s, int n, const int ranges[][3]) {
    if (n < 0 || (n > 0 && !ranges)) return call.fail(MPI_ERR_ARG);
    for (int k = 0; k < n; ++k) {
        const long long first = ranges[k][0], last = ranges[k][1], stride = ranges[k][2];
        if (stride == 0 || (stride > 0 ? first > last : first < last)) {
            char why[96];
            TextBuilder(why, sizeof why)
                .put("range ")
                .put_int(k)
                .put(" (")
                .put_int(first)
                .put(", ")
                .put_int(last)
                .put(", ")
                .put_int(stride)
                .put(") does not reach its last rank");
            return call.fail(MPI_ERR_ARG, why);
        }
        // At most size + 1 steps: a rank out of the group ends the loop.
        for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride)
            if (int e = s.add(call, static_cast<int>(r))) return e;
    }
    return MPI_SUCCESS;
}

// The set operations of section 6.3.2: the members of g1 that `keep`
// accepts, in g1's order, then (union only) those of g2 not in g1, in
// g2's order.
template <typename Keep>
int set_operation(const Call &call, MPI_Group group1, MPI_Group group2, MPI_Group *newgroup, bool add_second,
                  Keep keep) {
    if (int e = enter_groups(call, group1, group2)) return e;
    if (!newgroup) return call.fail(MPI_ERR_ARG);
    const GroupData &g1 = *group_get(group1);
    const GroupData &g2 = *group_get(group2);
    GroupData out{};
    for (int r = 0; r < g1.size; ++r)
        if (keep(contains(g2, g1.world[r]))) append(out, g1.world[r]);
    for (int r = 0; add_second && r < g2.size; ++r)
        if (!contains(g1, g2.world[r])) append(out, g2.world[r]);
    return give(call, out, newgroup);
}

// MPI_Group_incl, _excl, _range_incl and _range_excl: `select` picks ranks
// of the group into a Selection; the new group is what it included or
// what it left out.
template <typename Select>
int subset(const Call &call, MPI_Group group, MPI_Group *newgroup, bool include, Select select) {
    if (int e = enter_groups(call, group)) return e;
    if (!newgroup) return call.fail(MPI_ERR_ARG);
    Selection s(*group_get(group));
    if (int e = select(s)) return e;
    return give(call, include ? s.included() : s.excluded(), newgroup);
}

}  // namespace

}  // namespace lwmpi

int MPI_Group_size(MPI_Group group, int *size) {
    Call call("MPI_Group_size");
    if (int e = enter_groups(call, group)) return e;
    if (!size) return call.fail(MPI_ERR_ARG);
    *size = group_get(group)->size;
    return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int *rank) {
    Call call("MPI_Group_rank");
    if (int e = enter_groups(call, group)) return e;
    if (!rank) return call.fail(MPI_ERR_ARG);
    *rank = group_rank_of(*group_get(group), util::world_rank());
    return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
    Call call("MPI_Group_translate_ranks");
    if (int e = enter_groups(call, group1, group2)) return e;
    if (n < 0 || (n > 0 && (!ranks1 || !ranks2))) return call.fail(MPI_ERR_ARG);
    const GroupData &g1 = *group_get(group1);
    const GroupData &g2 = *group_get(group2);
    // Checked first so that an error leaves ranks2 untouched.
    for (int k = 0; k < n; ++k)
        if (ranks1[k] != MPI_PROC_NULL && (ranks1[k] < 0 || ranks1[k] >= g1.size))
            return raise_rank(call, ranks1[k], g1.size);
    for (int k = 0; k < n; ++k)
        ranks2[k] = ranks1[k] == MPI_PROC_NULL ? MPI_PROC_NULL : group_rank_of(g2, g1.world[ranks1[k]]);
    return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result) {
    Call call("MPI_Group_compare");
    if (int e = enter_groups(call, group1, group2)) return e;
    if (!result) return call.fail(MPI_ERR_ARG);
    const GroupData &g1 = *group_get(group1);
    const GroupData &g2 = *group_get(group2);
    bool same_order = g1.size == g2.size;
    bool same_members = same_order;
    for (int r = 0; r < g1.size && same_members; ++r) {
        same_order = same_order && g1.world[r] == g2.world[r];
        same_members = contains(g2, g1.world[r]);
    }
    *result = same_order ? MPI_IDENT : same_members ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
    Call call("MPI_Group_union");
    return set_operation(call, group1, group2, newgroup, true, [](bool) { return true; });
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
    Call call("MPI_Group_intersection");
    return set_operation(call, group1, group2, newgroup, false, [](bool in_g2) { return in_g2; });
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup) {
    Call call("MPI_Group_difference");
    return set_operation(call, group1, group2, newgroup, false, [](bool in_g2) { return !in_g2; });
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
    Call call("MPI_Group_incl");
    return subset(call, group, newgroup, true, [&](Selection &s) { return select_ranks(call, s, n, ranks); });
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup) {
    Call call("MPI_Group_excl");
    return subset(call, group, newgroup, false,
                  [&](Selection &s) { return select_ranks(call, s, n, ranks); });
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) {
    Call call("MPI_Group_range_incl");
    return subset(call, group, newgroup, true,
                  [&](Selection &s) { return select_ranges(call, s, n, ranges); });
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup) {
    Call call("MPI_Group_range_excl");
    return subset(call, group, newgroup, false,
                  [&](Selection &s) { return select_ranges(call, s, n, ranges); });
}

int MPI_Group_free(MPI_Group *group) {
    Call call("MPI_Group_free");
    if (int e = call.active()) return e;
    if (!group) return call.fail(MPI_ERR_ARG);
    // MPI_GROUP_EMPTY is what an empty result is, so programs free it like
    // any group they got (as MPICH and Open MPI allow); nothing to release.
    const int i = index_of(*group);
    if (i < 0 && *group != MPI_GROUP_EMPTY) return call.fail(MPI_ERR_GROUP);
    if (i >= 0) t_groups.get().remove(i);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
