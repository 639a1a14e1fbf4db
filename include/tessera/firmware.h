/*
 * The table the image builder hands Tessera's M-mode firmware on
 * qemu-riscv64 (hal/arch/qemu-riscv64/firmware/).
 *
 * tools/mkimage.py writes it as a raw blob that QEMU's generic loader puts
 * at TS_FW_TABLE_ADDR, in the last page of the firmware's region (below the
 * first cluster window). It says where each cluster's window is and which
 * harts it owns, and where the NoC fabric is: the firmware checks every
 * image against it, starts each cluster's master at its image's entry, and
 * sets every hart's PMP from it.
 *
 * Read by tools/tessera/abi.py like <tessera/image.h>: keep to #define
 * integer constants and structs of fixed-width integer fields.
 */
#ifndef TESSERA_FIRMWARE_H
#define TESSERA_FIRMWARE_H

#include <stdint.h>

#define TS_FW_TABLE_MAGIC  0x57465354u /* "TSFW" */
#define TS_FW_BASE         0x80000000u /* QEMU virt: where -bios none starts every hart */
#define TS_FW_TABLE_ADDR   0x801ff000u /* the table's page */
#define TS_FW_END          0x80200000u /* the firmware's region ends here: windows start above */
#define TS_FW_MAX_HARTS    512         /* QEMU 7.2 virt takes at most 512 harts */
#define TS_FW_MAX_CLUSTERS 32          /* TS_MAX_CLUSTERS of <tessera/image.h> */

/* One cluster: its window and its harts first_hart..first_hart+ncores-1. */
struct ts_fw_cluster {
    uint64_t window_base;
    uint64_t window_size;
    uint32_t first_hart;
    uint32_t ncores;
};

struct ts_fw_table {
    uint32_t magic;     /* TS_FW_TABLE_MAGIC */
    uint32_t nclusters; /* clusters[0..nclusters-1] */
    uint32_t nharts;    /* harts of the machine (QEMU's -smp) */
    uint32_t reserved;
    uint64_t fabric_base; /* the NoC fabric, shared by all clusters */
    uint64_t fabric_size;
    struct ts_fw_cluster clusters[TS_FW_MAX_CLUSTERS];
};

#endif
