// Attribute caching (MPI 3.1 section 6.7): the rank's keyvals and one
// table of all its attributes, whatever the kind of their objects.
//
// Callbacks may call MPI, attribute calls included, so the table can grow
// (move) or shrink during one: no pointer into it is held across a
// callback, and an entry is looked up again afterwards.
#include "attr.hpp"

#include <stdlib.h>

#include <lwmpi/rank_local.hpp>

namespace lwmpi {

namespace {

constexpr int max_keyvals = 64;  // per rank; index 0 is MPI_KEYVAL_INVALID

struct Keyval {
    bool used;   // created, and not yet gone
    bool freed;  // freed by the program: lives while attrs > 0
    HandleKind kind;
    AttrCopyFn *copy;
    AttrDeleteFn *del;
    void *extra_state;
    int attrs;  // attributes it keys
};

struct Attr {
    HandleKind kind;
    int object;
    int keyval;
    void *value;
};

// Attributes in the order they were set (an overwrite sets anew).
struct Attrs {
    Keyval *keyvals;  // max_keyvals of them, from the first keyval made
    Attr *items;
    int n;
    int cap;
};

thread_local util::RankLocal<Attrs> t_attrs;

// The keyval of handle `keyval`, live or freed but still used, or nullptr.
Keyval *keyval_at(int keyval) {
    const int i = table_index(keyval, HandleKind::keyval, 1, max_keyvals);
    Keyval *k = i < 0 || !t_attrs.get().keyvals ? nullptr : &t_attrs.get().keyvals[i];
    return k && k->used ? k : nullptr;
}

// The index of object's attribute `keyval`, or -1.
int find(HandleKind kind, int object, int keyval) {
    const Attrs &a = t_attrs.get();
    for (int i = 0; i < a.n; ++i)
        if (a.items[i].kind == kind && a.items[i].object == object && a.items[i].keyval == keyval) return i;
    return -1;
}

// Adds an attribute at the end; false when out of memory.
bool append(HandleKind kind, int object, int keyval, void *value) {
    Attrs &a = t_attrs.get();
    if (a.n == a.cap) {
        const int cap = a.cap ? 2 * a.cap : 16;
        Attr *grown = static_cast<Attr *>(realloc(a.items, cap * sizeof(Attr)));
        if (!grown) return false;
        a.items = grown;
        a.cap = cap;
    }
    a.items[a.n++] = Attr{kind, object, keyval, value};
    ++keyval_at(keyval)->attrs;
    return true;
}

// Removes attribute i, and its keyval when the program freed it and it
// keys nothing more.
void remove(int i) {
    Attrs &a = t_attrs.get();
    Keyval *k = keyval_at(a.items[i].keyval);
    for (; i + 1 < a.n; ++i)
        a.items[i] = a.items[i + 1];
    --a.n;
    if (--k->attrs == 0 && k->freed) *k = Keyval{};
}

// Calls the delete callback of attribute i, then removes it unless the
// callback failed (its code is returned).
int delete_at(int i) {
    const Attr a = t_attrs.get().items[i];
    const Keyval *k = keyval_at(a.keyval);
    if (k->del)
        if (int e = k->del(a.object, a.keyval, a.value, k->extra_state)) return e;
    const int now = find(a.kind, a.object, a.keyval);
    if (now >= 0) remove(now);
    return MPI_SUCCESS;
}

}  // namespace

int keyval_create(HandleKind kind, AttrCopyFn *copy, AttrDeleteFn *del, void *extra_state, int *keyval) {
    Attrs &a = t_attrs.get();
    if (!a.keyvals) a.keyvals = static_cast<Keyval *>(calloc(max_keyvals, sizeof(Keyval)));
    if (!a.keyvals) return MPI_ERR_NO_MEM;
    for (int i = 1; i < max_keyvals; ++i)
        if (!a.keyvals[i].used) {
            a.keyvals[i] = Keyval{true, false, kind, copy, del, extra_state, 0};
            *keyval = make_handle(HandleKind::keyval, i);
            return MPI_SUCCESS;
        }
    return MPI_ERR_NO_MEM;
}

bool keyval_extant(HandleKind kind, int keyval) {
    const Keyval *k = keyval_at(keyval);
    return k && k->kind == kind;
}

bool keyval_valid(HandleKind kind, int keyval) {
    return keyval_extant(kind, keyval) && !keyval_at(keyval)->freed;
}

int keyval_free(HandleKind kind, int keyval) {
    if (!keyval_extant(kind, keyval)) return MPI_ERR_KEYVAL;
    Keyval *k = keyval_at(keyval);
    k->freed = true;
    if (k->attrs == 0) *k = Keyval{};
    return MPI_SUCCESS;
}

int attr_set(HandleKind kind, int object, int keyval, void *value) {
    const int old = find(kind, object, keyval);
    if (old >= 0)  // section 6.7.2: the old value is deleted first
        if (int e = delete_at(old)) return e;
    return append(kind, object, keyval, value) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

void attr_get(HandleKind kind, int object, int keyval, void **value, int *flag) {
    const int i = find(kind, object, keyval);
    *flag = i >= 0;
    if (i >= 0) *value = t_attrs.get().items[i].value;
}

int attr_delete(HandleKind kind, int object, int keyval) {
    const int i = find(kind, object, keyval);
    return i < 0 ? MPI_SUCCESS : delete_at(i);
}

int attr_copy_all(HandleKind kind, int from, int to) {
    for (int i = 0; i < t_attrs.get().n; ++i) {
        const Attr a = t_attrs.get().items[i];
        if (a.kind != kind || a.object != from) continue;
        const Keyval *k = keyval_at(a.keyval);
        if (!k->copy) continue;
        void *value = nullptr;
        int flag = 0;
        int e = k->copy(from, a.keyval, k->extra_state, a.value, &value, &flag);
        if (!e && flag && !append(kind, to, a.keyval, value)) e = MPI_ERR_NO_MEM;
        if (e) {
            attr_delete_all(kind, to);  // its failures do not hide the first one
            return e;
        }
    }
    return MPI_SUCCESS;
}

int attr_delete_all(HandleKind kind, int object) {
    for (;;) {
        const Attrs &a = t_attrs.get();
        int last = a.n - 1;
        while (last >= 0 && (a.items[last].kind != kind || a.items[last].object != object))
            --last;
        if (last < 0) return MPI_SUCCESS;
        if (int e = delete_at(last)) return e;
    }
}

void attr_finalize() {
    Attrs &a = t_attrs.get();
    free(a.items);
    free(a.keyvals);
    a = Attrs{};
}

}  // namespace lwmpi
