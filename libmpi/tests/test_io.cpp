// MPI-IO in whole jobs (MPI 3.1 chapter 13), over the host's files in the
// tests' working folder: opening and its error classes, views, every
// kind of data access (explicit offsets, individual and shared file
// pointers, blocking, non-blocking, collective, split collective), the
// two-phase aggregation across clusters, external32 and user
// representations, atomic mode, sizes and file error handlers.
#include <catch2/catch.hpp>

#include <mpi.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "jobs_support.hpp"

using namespace jobs;

namespace {

// Ranks one per cluster (aggregators on each), and all on one cluster.
const Placement io_placements[] = {placements[2], placements[0]};

// body(rank, np) on np ranks in each placement, MPI_ERRORS_RETURN on
// MPI_COMM_WORLD; a body returns 0 or the line that failed.
template <class Body>
void each_placement(int np, Body body) {
    for (const Placement &p : io_placements) {
        SECTION(p.name) {
            const JobResult r = run_job(config(np, p), [&](int rank) {
                if (MPI_Init(nullptr, nullptr)) return __LINE__;
                MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
                const int e = body(rank, np);
                if (e) return e;
                return MPI_Finalize() == MPI_SUCCESS ? 0 : __LINE__;
            });
            CHECK_CLEAN(r);
        }
    }
}

// A file name of this test process only, removed at the end of a test.
struct TempName {
    std::string name;
    explicit TempName(const char *what)
        : name("lwmpi_io_" + std::string(what) + "_" + std::to_string(getpid())) {
        unlink(name.c_str());
    }
    ~TempName() { unlink(name.c_str()); }
    const char *c_str() const { return name.c_str(); }
};

int count_of_status(const MPI_Status &st, MPI_Datatype t) {
    int n = -1;
    MPI_Get_count(&st, t, &n);
    return n;
}

#define TRY(call) EXPECT_OK(call)

// A file error handler that notes the code it was called with.
thread_local int noted_error;
void note_error(MPI_File *, int *code, ...) { noted_error = *code; }

}  // namespace

TEST_CASE("a file written at explicit offsets reads back, with its size", "[jobs][io]") {
    TempName file("explicit");
    each_placement(4, [&](int rank, int np) {
        MPI_File fh;
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        int data[100];
        for (int i = 0; i < 100; ++i)
            data[i] = rank * 1000 + i;
        MPI_Status st;
        TRY(MPI_File_write_at(fh, rank * sizeof data, data, 100, MPI_INT, &st));
        EXPECT(count_of_status(st, MPI_INT) == 100);
        TRY(MPI_File_sync(fh));
        MPI_Offset size;
        TRY(MPI_File_get_size(fh, &size));
        EXPECT(size == static_cast<MPI_Offset>(np * sizeof data));
        int back[100] = {};
        const int other = (rank + 1) % np;
        TRY(MPI_File_read_at(fh, other * sizeof data, back, 100, MPI_INT, &st));
        EXPECT(count_of_status(st, MPI_INT) == 100);
        for (int i = 0; i < 100; ++i)
            EXPECT(back[i] == other * 1000 + i);
        // At the end of the file a read stops short.
        TRY(MPI_File_read_at(fh, size - 8, back, 100, MPI_INT, &st));
        EXPECT(count_of_status(st, MPI_INT) == 2);
        TRY(MPI_File_close(&fh));
        EXPECT(fh == MPI_FILE_NULL);
        return 0;
    });
}

TEST_CASE("opening and using a file raises MPI-IO's error classes on MPI_ERRORS_RETURN", "[jobs][io]") {
    TempName file("errors");
    each_placement(2, [&](int rank, int) {
        MPI_File fh = MPI_FILE_NULL;
        MPI_Errhandler h;
        TRY(MPI_File_get_errhandler(MPI_FILE_NULL, &h));
        EXPECT(h == MPI_ERRORS_RETURN);
        EXPECT(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) ==
               MPI_ERR_NO_SUCH_FILE);
        EXPECT(fh == MPI_FILE_NULL);
        EXPECT(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL,
                             &fh) == MPI_ERR_AMODE);
        EXPECT(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_RDWR | MPI_MODE_WRONLY, MPI_INFO_NULL,
                             &fh) == MPI_ERR_AMODE);
        EXPECT(MPI_File_open(MPI_COMM_WORLD, file.c_str(), rank ? MPI_MODE_RDONLY : MPI_MODE_RDWR,
                             MPI_INFO_NULL, &fh) == MPI_ERR_NOT_SAME);
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                          &fh));
        TRY(MPI_File_close(&fh));
        EXPECT(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY,
                             MPI_INFO_NULL, &fh) == MPI_ERR_FILE_EXISTS);
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
        char c = 'x';
        EXPECT(MPI_File_write_at(fh, 0, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE) == MPI_ERR_READ_ONLY);
        EXPECT(MPI_File_read_at(fh, -1, &c, 1, MPI_CHAR, MPI_STATUS_IGNORE) == MPI_ERR_ARG);
        EXPECT(MPI_File_read_at(fh, 0, &c, -1, MPI_CHAR, MPI_STATUS_IGNORE) == MPI_ERR_COUNT);
        EXPECT(MPI_File_read_at(fh, 0, &c, 1, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE) == MPI_ERR_TYPE);
        EXPECT(MPI_File_seek(fh, 0, 12345) == MPI_ERR_ARG);
        EXPECT(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL) ==
               MPI_ERR_UNSUPPORTED_DATAREP);
        EXPECT(MPI_File_read_all_end(fh, &c, MPI_STATUS_IGNORE) == MPI_ERR_OTHER);
        TRY(MPI_File_close(&fh));
        EXPECT(MPI_File_get_size(fh, nullptr) == MPI_ERR_FILE);
        TRY(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0) {
            TRY(MPI_File_delete(file.c_str(), MPI_INFO_NULL));
            EXPECT(MPI_File_delete(file.c_str(), MPI_INFO_NULL) == MPI_ERR_NO_SUCH_FILE);
        }
        // MPI_ERRORS_ARE_FATAL is not the default on files, but a user
        // handler set on MPI_FILE_NULL is called.
        MPI_Errhandler mine;
        TRY(MPI_File_create_errhandler(note_error, &mine));
        TRY(MPI_File_set_errhandler(MPI_FILE_NULL, mine));
        EXPECT(MPI_File_open(MPI_COMM_SELF, "no/such/folder/file", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) ==
               MPI_ERR_NO_SUCH_FILE);
        EXPECT(noted_error == MPI_ERR_NO_SUCH_FILE);
        TRY(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
        TRY(MPI_Errhandler_free(&mine));
        return 0;
    });
}

TEST_CASE("interleaved views written collectively and independently give the same file", "[jobs][io]") {
    TempName file("views");
    each_placement(4, [&](int rank, int np) {
        // Rank r owns blocks r, r + np, ... of 3 ints: a vector filetype.
        constexpr int block = 3, blocks = 500;
        MPI_Datatype filetype;
        TRY(MPI_Type_vector(blocks, block, block * np, MPI_INT, &filetype));
        TRY(MPI_Type_commit(&filetype));
        std::vector<int> mine(block * blocks), back(block * blocks);
        for (int i = 0; i < block * blocks; ++i)
            mine[i] = (i / block * np + rank) * block + i % block;
        const MPI_Offset disp = rank * block * static_cast<MPI_Offset>(sizeof(int));
        for (int independent = 0; independent < 2; ++independent) {
            MPI_File fh;
            MPI_Info info;
            TRY(MPI_Info_create(&info));
            TRY(MPI_Info_set(info, "cb_buffer_size", "4096"));  // many rounds
            TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
            TRY(MPI_Info_free(&info));
            TRY(MPI_File_set_view(fh, disp, MPI_INT, filetype, "native", MPI_INFO_NULL));
            MPI_Status st;
            if (independent)
                TRY(MPI_File_write(fh, mine.data(), block * blocks, MPI_INT, &st));
            else
                TRY(MPI_File_write_all(fh, mine.data(), block * blocks, MPI_INT, &st));
            EXPECT(count_of_status(st, MPI_INT) == block * blocks);
            MPI_Offset pos;
            TRY(MPI_File_get_position(fh, &pos));
            EXPECT(pos == block * blocks);
            TRY(MPI_File_sync(fh));
            // The whole file, as plain ints, is 0, 1, 2, ...
            TRY(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
            std::vector<int> all(block * blocks * np);
            TRY(MPI_File_read_at_all(fh, 0, all.data(), static_cast<int>(all.size()), MPI_INT, &st));
            EXPECT(count_of_status(st, MPI_INT) == static_cast<int>(all.size()));
            for (size_t i = 0; i < all.size(); ++i)
                EXPECT(all[i] == static_cast<int>(i));
            // And through the view again, collectively.
            TRY(MPI_File_set_view(fh, disp, MPI_INT, filetype, "native", MPI_INFO_NULL));
            std::fill(back.begin(), back.end(), -1);
            TRY(MPI_File_read_all(fh, back.data(), block * blocks, MPI_INT, &st));
            EXPECT(back == mine);
            MPI_Offset byte;
            TRY(MPI_File_get_byte_offset(fh, block, &byte));
            EXPECT(byte == static_cast<MPI_Offset>((np + rank) * block * sizeof(int)));
            TRY(MPI_File_close(&fh));
            TRY(MPI_Barrier(MPI_COMM_WORLD));
            if (rank == 0) TRY(MPI_File_delete(file.c_str(), MPI_INFO_NULL));
            TRY(MPI_Barrier(MPI_COMM_WORLD));
        }
        TRY(MPI_Type_free(&filetype));
        return 0;
    });
}

TEST_CASE("a collective read past the end of the file reports what it found", "[jobs][io]") {
    TempName file("short");
    each_placement(4, [&](int rank, int) {
        MPI_File fh;
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        char text[10] = "abcdefghi";
        if (rank == 0) TRY(MPI_File_write_at(fh, 0, text, 10, MPI_CHAR, MPI_STATUS_IGNORE));
        TRY(MPI_File_sync(fh));
        char got[8] = {};
        MPI_Status st;
        TRY(MPI_File_read_at_all(fh, rank * 4, got, 8, MPI_CHAR, &st));
        const int expect[] = {8, 6, 2, 0};
        EXPECT(count_of_status(st, MPI_CHAR) == expect[rank]);
        EXPECT(memcmp(got, text + rank * 4, static_cast<size_t>(expect[rank])) == 0);
        TRY(MPI_File_close(&fh));
        return 0;
    });
}

TEST_CASE("the shared file pointer, ordered and not, hands out each place once", "[jobs][io]") {
    TempName file("shared");
    each_placement(4, [&](int rank, int np) {
        MPI_File fh;
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(),
                          MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
        TRY(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
        int v[2] = {rank, rank};
        TRY(MPI_File_write_shared(fh, v, 2, MPI_INT, MPI_STATUS_IGNORE));
        TRY(MPI_Barrier(MPI_COMM_WORLD));
        MPI_Offset pos;
        TRY(MPI_File_get_position_shared(fh, &pos));
        EXPECT(pos == 2 * np);
        // Then in rank order, rank r writing r + 1 ints.
        std::vector<int> mine(rank + 1, 100 + rank);
        TRY(MPI_File_write_ordered(fh, mine.data(), rank + 1, MPI_INT, MPI_STATUS_IGNORE));
        std::vector<int> all(2 * np + np * (np + 1) / 2);
        TRY(MPI_File_read_at_all(fh, 0, all.data(), static_cast<int>(all.size()), MPI_INT,
                                 MPI_STATUS_IGNORE));
        std::vector<int> seen(np, 0);
        for (int i = 0; i < 2 * np; i += 2) {
            EXPECT(all[i] == all[i + 1] && all[i] >= 0 && all[i] < np);
            ++seen[all[i]];
        }
        for (int r = 0; r < np; ++r)
            EXPECT(seen[r] == 1);
        for (int r = 0, at = 2 * np; r < np; ++r)
            for (int k = 0; k <= r; ++k)
                EXPECT(all[at++] == 100 + r);
        // Back to the start together, then read in order what was written.
        TRY(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
        int pair[2];
        TRY(MPI_File_read_ordered(fh, pair, 2, MPI_INT, MPI_STATUS_IGNORE));
        EXPECT(pair[0] == all[2 * rank] && pair[1] == all[2 * rank + 1]);
        EXPECT(MPI_File_seek_shared(fh, rank, MPI_SEEK_SET) == MPI_ERR_NOT_SAME || np == 1);
        TRY(MPI_File_close(&fh));
        return 0;
    });
    CHECK(access(file.c_str(), F_OK) != 0);  // MPI_MODE_DELETE_ON_CLOSE
}

TEST_CASE("non-blocking and split collective accesses complete with their counts", "[jobs][io]") {
    TempName file("nonblocking");
    each_placement(4, [&](int rank, int np) {
        MPI_File fh;
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        double d[16];
        for (int i = 0; i < 16; ++i)
            d[i] = rank + i / 100.0;
        MPI_Request req[2];
        TRY(MPI_File_iwrite_at(fh, rank * sizeof d, d, 16, MPI_DOUBLE, &req[0]));
        TRY(MPI_File_iwrite_at_all(fh, (np + rank) * sizeof d, d, 16, MPI_DOUBLE, &req[1]));
        MPI_Status st[2];
        TRY(MPI_Waitall(2, req, st));
        EXPECT(count_of_status(st[0], MPI_DOUBLE) == 16 && count_of_status(st[1], MPI_DOUBLE) == 16);
        TRY(MPI_File_sync(fh));
        double back[32];
        TRY(MPI_File_read_at_all_begin(fh, rank * sizeof d, back, 16, MPI_DOUBLE));
        EXPECT(MPI_File_read_at_all_begin(fh, 0, back, 1, MPI_DOUBLE) == MPI_ERR_OTHER);
        TRY(MPI_File_read_at_all_end(fh, back, &st[0]));
        EXPECT(count_of_status(st[0], MPI_DOUBLE) == 16 && back[3] == d[3]);
        MPI_Request r;
        TRY(MPI_File_iread_at(fh, (np + rank) * sizeof d, back + 16, 16, MPI_DOUBLE, &r));
        TRY(MPI_Wait(&r, &st[0]));
        EXPECT(memcmp(back + 16, d, sizeof d) == 0);
        TRY(MPI_File_seek(fh, rank * 16, MPI_SEEK_SET));
        TRY(MPI_File_write_all_begin(fh, d, 2, MPI_DOUBLE));
        TRY(MPI_File_write_all_end(fh, d, &st[0]));
        MPI_Offset pos;
        TRY(MPI_File_get_position(fh, &pos));
        EXPECT(pos == rank * 16 + 2 * static_cast<MPI_Offset>(sizeof(double)));
        TRY(MPI_File_close(&fh));
        return 0;
    });
}

TEST_CASE("set_size, preallocate, seek from the end and append", "[jobs][io]") {
    TempName file("sizes");
    each_placement(2, [&](int rank, int) {
        MPI_File fh;
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        TRY(MPI_File_set_size(fh, 1000));
        MPI_Offset size;
        TRY(MPI_File_get_size(fh, &size));
        EXPECT(size == 1000);
        TRY(MPI_File_preallocate(fh, 500));  // never shrinks
        TRY(MPI_File_get_size(fh, &size));
        EXPECT(size == 1000);
        EXPECT(MPI_File_set_size(fh, rank ? 10 : 20) == MPI_ERR_NOT_SAME);
        TRY(MPI_File_set_size(fh, 64));
        TRY(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
        TRY(MPI_File_seek(fh, -2, MPI_SEEK_END));
        MPI_Offset pos;
        TRY(MPI_File_get_position(fh, &pos));
        EXPECT(pos == 14);
        EXPECT(MPI_File_seek(fh, -100, MPI_SEEK_CUR) == MPI_ERR_ARG);
        int amode;
        TRY(MPI_File_get_amode(fh, &amode));
        EXPECT(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR));
        MPI_Group g;
        TRY(MPI_File_get_group(fh, &g));
        int gs;
        MPI_Group_size(g, &gs);
        EXPECT(gs == 2);
        MPI_Group_free(&g);
        MPI_Info used;
        TRY(MPI_File_get_info(fh, &used));
        char value[MPI_MAX_INFO_VAL];
        int flag;
        TRY(MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, value, &flag));
        EXPECT(flag);
        MPI_Info_free(&used);
        TRY(MPI_File_close(&fh));
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL,
                          &fh));
        TRY(MPI_File_get_position(fh, &pos));
        EXPECT(pos == 64);
        TRY(MPI_File_close(&fh));
        return 0;
    });
}

TEST_CASE("external32 stores big-endian; a user representation converts", "[jobs][io]") {
    TempName file("datarep");
    each_placement(2, [&](int rank, int) {
        MPI_File fh;
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        TRY(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
        const int v = 0x01020304 + rank;
        TRY(MPI_File_write_at_all(fh, rank, &v, 1, MPI_INT, MPI_STATUS_IGNORE));
        int back = 0;
        TRY(MPI_File_read_at(fh, rank, &back, 1, MPI_INT, MPI_STATUS_IGNORE));
        EXPECT(back == v);
        const long wide = 1;  // 8 bytes here, 4 in external32
        EXPECT(MPI_File_write_at(fh, 0, &wide, 1, MPI_LONG, MPI_STATUS_IGNORE) ==
               MPI_ERR_UNSUPPORTED_DATAREP);
        TRY(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
        unsigned char raw[4];
        TRY(MPI_File_read_at(fh, 4 * rank, raw, 4, MPI_BYTE, MPI_STATUS_IGNORE));
        EXPECT(raw[0] == 1 && raw[1] == 2 && raw[2] == 3 && raw[3] == 4 + rank);
        // MPI_LONG is 4 bytes in external32: refused, not garbled.
        EXPECT(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL) ==
               MPI_ERR_UNSUPPORTED_DATAREP);
        // A representation that stores each int plus one.
        auto extent = [](MPI_Datatype, MPI_Aint *e, void *) {
            *e = sizeof(int);
            return MPI_SUCCESS;
        };
        auto to_file = [](void *user, MPI_Datatype, int count, void *file, MPI_Offset, void *) {
            for (int i = 0; i < count; ++i)
                static_cast<int *>(file)[i] = static_cast<int *>(user)[i] + 1;
            return MPI_SUCCESS;
        };
        auto from_file = [](void *user, MPI_Datatype, int count, void *file, MPI_Offset, void *) {
            for (int i = 0; i < count; ++i)
                static_cast<int *>(user)[i] = static_cast<int *>(file)[i] - 1;
            return MPI_SUCCESS;
        };
        const int reg = MPI_Register_datarep("plus-one", from_file, to_file, extent, nullptr);
        EXPECT(reg == MPI_SUCCESS || reg == MPI_ERR_DUP_DATAREP);
        EXPECT(MPI_Register_datarep("plus-one", from_file, to_file, extent, nullptr) == MPI_ERR_DUP_DATAREP);
        TRY(MPI_File_set_view(fh, 64, MPI_INT, MPI_INT, "plus-one", MPI_INFO_NULL));
        const int w = 41 + rank;
        TRY(MPI_File_write_at_all(fh, rank, &w, 1, MPI_INT, MPI_STATUS_IGNORE));
        TRY(MPI_File_read_at(fh, rank, &back, 1, MPI_INT, MPI_STATUS_IGNORE));
        EXPECT(back == w);
        char rep[MPI_MAX_DATAREP_STRING];
        MPI_Offset disp;
        MPI_Datatype et, ft;
        TRY(MPI_File_get_view(fh, &disp, &et, &ft, rep));
        EXPECT(disp == 64 && et == MPI_INT && ft == MPI_INT && !strcmp(rep, "plus-one"));
        TRY(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
        int stored;
        TRY(MPI_File_read_at(fh, 64 + 4 * rank, &stored, 4, MPI_BYTE, MPI_STATUS_IGNORE));
        EXPECT(stored == w + 1);
        TRY(MPI_File_close(&fh));
        return 0;
    });
}

TEST_CASE("in atomic mode overlapping writes of many pieces never mix", "[jobs][io]") {
    TempName file("atomic");
    each_placement(4, [&](int rank, int np) {
        MPI_File fh;
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        TRY(MPI_File_set_atomicity(fh, 1));
        int flag;
        TRY(MPI_File_get_atomicity(fh, &flag));
        EXPECT(flag == 1);
        // Every rank writes the same 64 strided ints: the file must end
        // up all one rank's.
        MPI_Datatype every_other;
        TRY(MPI_Type_vector(64, 1, 2, MPI_INT, &every_other));
        TRY(MPI_Type_commit(&every_other));
        TRY(MPI_File_set_view(fh, 0, MPI_INT, every_other, "native", MPI_INFO_NULL));
        std::vector<int> mine(64, rank + 1);
        for (int round = 0; round < 5; ++round)
            TRY(MPI_File_write_at(fh, 0, mine.data(), 64, MPI_INT, MPI_STATUS_IGNORE));
        TRY(MPI_Barrier(MPI_COMM_WORLD));
        std::vector<int> back(64);
        TRY(MPI_File_read_at(fh, 0, back.data(), 64, MPI_INT, MPI_STATUS_IGNORE));
        for (int v : back)
            EXPECT(v == back[0] && v >= 1 && v <= np);
        TRY(MPI_Type_free(&every_other));
        TRY(MPI_File_close(&fh));
        return 0;
    });
}

TEST_CASE("a view's types must not go back, nor overlap in a file open for writing", "[jobs][io]") {
    TempName file("layout");
    each_placement(2, [&](int, int) {
        const int lengths[2] = {1, 1}, back[2] = {3, 0}, negative[2] = {-2, 2};
        const int overlap_lengths[2] = {3, 1}, overlap[2] = {0, 1};
        MPI_Datatype going_back, below_zero, overlapping;
        TRY(MPI_Type_indexed(2, lengths, back, MPI_INT, &going_back));
        TRY(MPI_Type_indexed(2, lengths, negative, MPI_INT, &below_zero));
        TRY(MPI_Type_indexed(2, overlap_lengths, overlap, MPI_INT, &overlapping));
        for (MPI_Datatype *t : {&going_back, &below_zero, &overlapping})
            TRY(MPI_Type_commit(t));
        for (int amode : {MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_MODE_RDONLY}) {
            MPI_File fh;
            TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), amode, MPI_INFO_NULL, &fh));
            EXPECT(MPI_File_set_view(fh, 0, MPI_INT, going_back, "native", MPI_INFO_NULL) == MPI_ERR_IO);
            EXPECT(MPI_File_set_view(fh, 0, MPI_INT, below_zero, "native", MPI_INFO_NULL) == MPI_ERR_IO);
            const int e = MPI_File_set_view(fh, 0, MPI_INT, overlapping, "native", MPI_INFO_NULL);
            EXPECT(e == (amode == MPI_MODE_RDONLY ? MPI_SUCCESS : MPI_ERR_IO));
            TRY(MPI_File_close(&fh));
        }
        for (MPI_Datatype *t : {&going_back, &below_zero, &overlapping})
            TRY(MPI_Type_free(t));
        return 0;
    });
}

TEST_CASE("a collective write with holes keeps what lies between on a write-only file", "[jobs][io]") {
    TempName file("holes");
    each_placement(4, [&](int rank, int np) {
        MPI_File fh;
        std::vector<char> fill(64 * np, '.');
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                          &fh));
        if (rank == 0) TRY(MPI_File_write_at(fh, 0, fill.data(), 64 * np, MPI_CHAR, MPI_STATUS_IGNORE));
        TRY(MPI_File_sync(fh));
        // Each rank writes 2 bytes of every 8 of its 64, leaving holes.
        MPI_Datatype sparse;
        TRY(MPI_Type_vector(8, 2, 8, MPI_CHAR, &sparse));
        TRY(MPI_Type_commit(&sparse));
        TRY(MPI_File_set_view(fh, 64 * rank, MPI_CHAR, sparse, "native", MPI_INFO_NULL));
        char mine[16];
        memset(mine, 'a' + rank, sizeof mine);
        TRY(MPI_File_write_all(fh, mine, 16, MPI_CHAR, MPI_STATUS_IGNORE));
        EXPECT(MPI_File_read(fh, mine, 1, MPI_CHAR, MPI_STATUS_IGNORE) == MPI_ERR_ACCESS);
        TRY(MPI_File_close(&fh));
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
        TRY(MPI_File_read_at_all(fh, 0, fill.data(), 64 * np, MPI_CHAR, MPI_STATUS_IGNORE));
        for (int i = 0; i < 64 * np; ++i)
            EXPECT(fill[i] == (i % 8 < 2 ? 'a' + i / 64 : '.'));
        TRY(MPI_File_close(&fh));
        TRY(MPI_Type_free(&sparse));
        return 0;
    });
}

TEST_CASE("a sequential file takes only the shared file pointer, and views from where it is", "[jobs][io]") {
    TempName file("sequential");
    each_placement(2, [&](int rank, int np) {
        MPI_File fh;
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(),
                          MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh));
        const int v = rank;
        EXPECT(MPI_File_write_at(fh, 0, &v, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_ERR_UNSUPPORTED_OPERATION);
        EXPECT(MPI_File_write(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE) == MPI_ERR_UNSUPPORTED_OPERATION);
        EXPECT(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT - 1, MPI_INT, MPI_INT, "native",
                                 MPI_INFO_NULL) == MPI_ERR_ARG);
        TRY(MPI_File_write_ordered(fh, "abc", 3, MPI_CHAR, MPI_STATUS_IGNORE));
        TRY(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
        MPI_Offset disp;
        MPI_Datatype et, ft;
        char rep[MPI_MAX_DATAREP_STRING];
        TRY(MPI_File_get_view(fh, &disp, &et, &ft, rep));
        EXPECT(disp == 3 * np);
        TRY(MPI_File_write_shared(fh, &v, 1, MPI_INT, MPI_STATUS_IGNORE));
        TRY(MPI_File_close(&fh));
        return 0;
    });
}

TEST_CASE("views whose tiles go back in the file, or reach past their extent", "[jobs][io]") {
    TempName file("resized");
    each_placement(2, [&](int rank, int np) {
        MPI_File fh;
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        // Bytes [0,2) and [6,8) of every 4: tile k's second block lies past
        // tile k + 1's first, so the view goes back in the file.
        const int lengths[2] = {2, 2}, disps[2] = {0, 6};
        MPI_Datatype two, tiled, empty;
        TRY(MPI_Type_indexed(2, lengths, disps, MPI_CHAR, &two));
        TRY(MPI_Type_create_resized(two, 0, 4, &tiled));
        TRY(MPI_Type_commit(&tiled));
        TRY(MPI_Type_contiguous(0, MPI_CHAR, &empty));
        TRY(MPI_Type_commit(&empty));
        EXPECT(MPI_File_set_view(fh, 0, MPI_CHAR, empty, "native", MPI_INFO_NULL) == MPI_ERR_TYPE);
        // Rank r's view starts at 32 * r: 4 tiles of 4 data bytes each,
        // whose data reach 20 bytes past it.
        TRY(MPI_File_set_view(fh, 32 * rank, MPI_CHAR, tiled, "native", MPI_INFO_NULL));
        char out[16], back[16];
        for (int i = 0; i < 16; ++i)
            out[i] = static_cast<char>('A' + 16 * rank + i);
        TRY(MPI_File_write_all(fh, out, 16, MPI_CHAR, MPI_STATUS_IGNORE));
        TRY(MPI_File_sync(fh));
        TRY(MPI_File_seek(fh, 0, MPI_SEEK_SET));
        memset(back, 0, sizeof back);
        TRY(MPI_File_read_all(fh, back, 16, MPI_CHAR, MPI_STATUS_IGNORE));
        EXPECT(memcmp(back, out, sizeof out) == 0);
        // The last rank's data end the file, 20 bytes into its view: its
        // end counts the view's bytes before it, the 16 written and the 2
        // of a fifth tile (16..17) that the file holds.
        MPI_Offset pos;
        if (rank == np - 1) {
            TRY(MPI_File_seek(fh, 0, MPI_SEEK_END));
            TRY(MPI_File_get_position(fh, &pos));
            EXPECT(pos == 18);
        }
        // A read that meets the end moves the pointer only that far.
        TRY(MPI_File_set_view(fh, 0, MPI_CHAR, MPI_CHAR, "native", MPI_INFO_NULL));
        MPI_Offset size;
        TRY(MPI_File_get_size(fh, &size));
        TRY(MPI_File_seek(fh, size - 3, MPI_SEEK_SET));
        MPI_Status st;
        TRY(MPI_File_read(fh, back, 10, MPI_CHAR, &st));
        TRY(MPI_File_get_position(fh, &pos));
        EXPECT(count_of_status(st, MPI_CHAR) == 3 && pos == size);
        TRY(MPI_File_close(&fh));
        // MPI_MODE_APPEND: the shared pointer starts at the end as well.
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_WRONLY | MPI_MODE_APPEND, MPI_INFO_NULL,
                          &fh));
        const char mark = static_cast<char>('a' + rank);
        TRY(MPI_File_write_shared(fh, &mark, 1, MPI_CHAR, MPI_STATUS_IGNORE));
        TRY(MPI_File_close(&fh));
        TRY(MPI_File_open(MPI_COMM_WORLD, file.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
        MPI_Offset grown;
        TRY(MPI_File_get_size(fh, &grown));
        EXPECT(grown == size + np);
        TRY(MPI_File_read_at(fh, 0, back, 1, MPI_CHAR, MPI_STATUS_IGNORE));
        EXPECT(back[0] == 'A');
        TRY(MPI_File_close(&fh));
        for (MPI_Datatype *t : {&two, &tiled, &empty})
            TRY(MPI_Type_free(t));
        return 0;
    });
}
