#!/usr/bin/python3
"""Unit tests of tools/tessera/profile.py: parsing, layout, platform limits,
--map-by ppr:N:cluster's slots per cluster, --cluster-memory's size and
limits."""
import json
import os
from dataclasses import replace
import tempfile
import unittest

from toolsupport import too_many_processes
from tessera.profile import (MIB, PROFILE_DIR, OptionError, ProfileError, ToolError,
                             check_capacity, check_memory, check_platform, compute_layout,
                             host_memory_mb, load_profile, parse_cluster_memory, parse_profile,
                             per_cluster_layout)

with open(os.path.join(PROFILE_DIR, "default.json")) as f:
    DEFAULT = json.load(f)

REQUIRED = ["name", "memory_base", "io_clusters", "io_cores", "io_memory_mb",
            "compute_clusters", "compute_cores", "compute_memory_mb", "fabric_mb",
            "mailbox_size", "portal_chunk", "io_mailboxes", "io_portals",
            "compute_mailboxes", "compute_portals", "virtual_per_hw", "ikc_buffers",
            "timebase_hz"]


def profile(**changes):
    """The default profile's data with some keys changed (None deletes)."""
    data = dict(DEFAULT)
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    return data


class ParseTest(unittest.TestCase):
    def bad(self, data, *words):
        with self.assertRaises(ProfileError) as cm:
            parse_profile(data, "'test'")
        for w in words:
            self.assertIn(w, str(cm.exception))

    def test_default_profile(self):
        p = load_profile("default")
        self.assertEqual((p.name, p.memory_base, p.io_clusters, p.io_cores, p.io_memory_mb),
                         ("default", 0x80200000, 1, 4, 8))
        self.assertEqual((p.compute_clusters, p.compute_cores, p.compute_memory_mb, p.fabric_mb),
                         (4, 5, 64, 4))
        self.assertEqual((p.mailbox_size, p.portal_chunk, p.timebase_hz), (128, 4096, 10000000))

    def test_each_missing_key_is_named(self):
        for key in REQUIRED:
            with self.subTest(key=key):
                self.bad(profile(**{key: None}), f"missing key '{key}'")

    def test_description_is_optional(self):
        self.assertEqual(parse_profile(profile(description=None)).description, "")

    def test_unknown_key(self):
        self.bad(profile(io_core=2), "unknown key 'io_core'")

    def test_not_an_object(self):
        self.bad([1, 2], "JSON object")

    def test_bad_values_name_the_key(self):
        cases = [
            ("io_cores", 0), ("io_cores", 18), ("compute_cores", 1), ("compute_cores", 18),
            ("io_clusters", 0), ("compute_clusters", 0), ("io_memory_mb", 7),
            ("compute_memory_mb", 0), ("fabric_mb", 3), ("mailbox_size", "128"),
            ("portal_chunk", 100), ("timebase_hz", 0), ("compute_cores", True),
            ("io_memory_mb", 8.0), ("io_mailboxes", 0), ("io_portals", 5),
            ("compute_mailboxes", 0), ("compute_portals", 5), ("virtual_per_hw", 1),
            ("virtual_per_hw", 65), ("ikc_buffers", 7), ("ikc_buffers", 257),
        ]
        for key, value in cases:
            with self.subTest(key=key, value=value):
                self.bad(profile(**{key: value}), f"'{key}'")

    def test_mailbox_size_fits_a_name_request_and_the_kernel(self):
        for size in (96, 128, 256):
            self.assertEqual(parse_profile(profile(mailbox_size=size)).mailbox_size, size)
        for size in (16, 64, 88, 264, 512):
            with self.subTest(size=size):
                self.bad(profile(mailbox_size=size),
                         "key 'mailbox_size'", "must be between 96 and 256", f"got {size}")
        self.bad(profile(mailbox_size=100), "multiple of 8")

    def test_tables_must_hold_the_ranks(self):
        # One hardware mailbox carries the kernel's 4 inputs and 3 per rank
        # (its own, its core's name replies, its file client): 9 ranks need
        # 31, 10 need 34; portals need 2 + 2 per rank.
        self.assertEqual(parse_profile(profile(compute_cores=10)).compute_cores, 10)
        self.bad(profile(compute_cores=11), "10 MPI processes open 34 input mailboxes",
                 "'virtual_per_hw' lets one carry 32", "raise it by 2")
        self.bad(profile(compute_cores=17, virtual_per_hw=48), "52 input mailboxes",
                 "raise it by 4")
        # A second hardware mailbox halves the load; portals then limit.
        self.bad(profile(compute_cores=17, compute_mailboxes=2, virtual_per_hw=32),
                 "34 input portals on one hardware portal", "raise it by 2")
        two = parse_profile(profile(compute_cores=17, compute_mailboxes=2,
                                    compute_portals=2, virtual_per_hw=32))
        self.assertEqual(two.compute_mailboxes, 2)

    def test_shipped_profiles_hold_their_ranks(self):
        for name in ("default", "full-cluster", "mppa256"):
            with self.subTest(profile=name):
                load_profile(name)

    def test_bad_name(self):
        self.bad(profile(name=""), "'name'")
        self.bad(profile(name=3), "'name'")

    def test_memory_base(self):
        self.assertEqual(parse_profile(profile(memory_base=0x80400000)).memory_base, 0x80400000)
        self.bad(profile(memory_base="0x80300000"), "'memory_base'", "2 MiB aligned")
        self.bad(profile(memory_base="lots"), "'memory_base'")
        self.bad(profile(memory_base=-2), "'memory_base'")

    def test_too_many_clusters(self):
        self.bad(profile(io_clusters=4, compute_clusters=29), "33 clusters", "32")

    def test_profile_by_path_and_errors(self):
        with tempfile.TemporaryDirectory() as d:
            good = os.path.join(d, "mine.json")
            with open(good, "w") as f:
                json.dump(profile(name="mine"), f)
            self.assertEqual(load_profile(good).name, "mine")
            broken = os.path.join(d, "broken.json")
            with open(broken, "w") as f:
                f.write('{\n "name": "x",\n}')
            with self.assertRaisesRegex(ProfileError, "bad JSON at line 3"):
                load_profile(broken)
            with self.assertRaisesRegex(ProfileError, "not found"):
                load_profile(os.path.join(d, "missing.json"))
            missing_key = os.path.join(d, "nokey.json")
            with open(missing_key, "w") as f:
                json.dump(profile(fabric_mb=None), f)
            with self.assertRaisesRegex(ProfileError, r"nokey.*missing key 'fabric_mb'"):
                load_profile(missing_key)

    def test_unknown_profile_lists_known_ones(self):
        with self.assertRaises(ProfileError) as cm:
            load_profile("nosuch")
        self.assertIn("unknown profile 'nosuch'", str(cm.exception))
        self.assertIn("default", str(cm.exception))
        self.assertIn("mppa256", str(cm.exception))


class LayoutTest(unittest.TestCase):
    def test_default_windows(self):
        layout = compute_layout(load_profile("default"))
        got = [(c.id, c.kind, c.window_base, c.window_size) for c in layout.clusters]
        self.assertEqual(got, [
            (0, 0, 0x80200000, 8 * MIB),
            (1, 1, 0x80A00000, 64 * MIB),
            (2, 1, 0x84A00000, 64 * MIB),
            (3, 1, 0x88A00000, 64 * MIB),
            (4, 1, 0x8CA00000, 64 * MIB),
        ])
        self.assertEqual((layout.fabric_base, layout.fabric_size), (0x90A00000, 4 * MIB))

    def test_default_harts_and_ram(self):
        layout = compute_layout(load_profile("default"))
        self.assertEqual([(c.first_hart, c.ncores) for c in layout.clusters],
                         [(0, 4), (4, 5), (9, 5), (14, 5), (19, 5)])
        self.assertEqual(layout.harts, 24)
        # fabric end 0x90E00000 - 0x80000000 = 270 MiB, + 4 MiB for the DTB
        self.assertEqual(layout.ram_mb, 274)
        self.assertEqual((layout.slots_per_cluster, layout.capacity), (4, 16))

    def test_mppa256_topology(self):
        layout = compute_layout(load_profile("mppa256"))
        self.assertEqual((layout.nio, layout.ncompute), (4, 16))
        self.assertEqual([c.ncores for c in layout.clusters], [4] * 4 + [17] * 16)
        self.assertEqual(layout.slots_per_cluster, 16)
        self.assertEqual(layout.harts, 4 * 4 + 16 * 17)
        # Contiguous, 2 MiB aligned windows, fabric right after the last one.
        end = layout.profile.memory_base
        for c in layout.clusters:
            self.assertEqual(c.window_base, end)
            self.assertEqual(c.window_base % (2 * MIB), 0)
            end = c.window_end
        self.assertEqual(layout.fabric_base, end)
        # Compute windows of 2 MiB, as the chip's SRAM; mppa256-big is the
        # same machine with 16 MiB ones.
        self.assertTrue(all(c.window_size == 2 * MIB for c in layout.clusters[4:]))
        big = compute_layout(load_profile("mppa256-big"))
        self.assertTrue(all(c.window_size == 16 * MIB for c in big.clusters[4:]))
        self.assertEqual(replace(big.profile, name="mppa256", description="", compute_memory_mb=2,
                                 source=""),
                         replace(layout.profile, description="", source=""))

    def test_2_mib_windows(self):
        data = profile(compute_memory_mb=2, io_memory_mb=2)
        p = parse_profile(data)
        self.assertEqual((p.compute_memory_mb, p.io_memory_mb), (2, 2))
        for key in ("compute_memory_mb", "io_memory_mb"):
            with self.subTest(key=key), self.assertRaisesRegex(ProfileError, "at least 2, got 1"):
                parse_profile(dict(data, **{key: 1}))

    def test_mppa256_on_qemu_needs_our_firmware(self):
        check_platform(compute_layout(load_profile("mppa256")), "qemu-riscv64")
        layout = compute_layout(load_profile("mppa256"), firmware="opensbi")
        with self.assertRaises(ToolError) as cm:
            check_platform(layout, "qemu-riscv64")
        msg = str(cm.exception)
        for w in ("'mppa256'", "288 harts", "at most 128", "OpenSBI 1.1", "--firmware tessera"):
            self.assertIn(w, msg)
        check_platform(layout, "linux64")      # the hosted target has no such limit

    def test_hart_limits(self):
        # OpenSBI: 1 x 16 + 7 x 16 = 128 harts fits; one more core does not.
        # Ours: 4 x 16 + 28 x 16 = 512 fits (QEMU's virt limit), 513 does not.
        for firmware, io_cores, clusters, most in (("opensbi", 16, 7, 128),
                                                   ("tessera", 16, 31, 512)):
            with self.subTest(firmware=firmware):
                fits = compute_layout(parse_profile(profile(
                    io_cores=io_cores, compute_clusters=clusters, compute_cores=16,
                    virtual_per_hw=64)),
                    firmware=firmware)
                self.assertEqual(fits.harts, most)
                check_platform(fits, "qemu-riscv64")
                over = compute_layout(parse_profile(profile(
                    io_cores=io_cores + 1, compute_clusters=clusters, compute_cores=16,
                    virtual_per_hw=64)),
                    firmware=firmware)
                with self.assertRaisesRegex(ToolError, f"{most + 1} harts.*at most {most}"):
                    check_platform(over, "qemu-riscv64")

    def test_unknown_firmware(self):
        with self.assertRaisesRegex(ToolError, "unknown firmware 'bbl'"):
            compute_layout(load_profile("default"), firmware="bbl")

    def test_firmware_region_refused_on_qemu(self):
        layout = compute_layout(parse_profile(profile(memory_base="0x80000000")))
        with self.assertRaisesRegex(ToolError, "inside the firmware's region"):
            check_platform(layout, "qemu-riscv64")

    def test_unknown_platform(self):
        with self.assertRaisesRegex(ToolError, "unknown platform 'x86'"):
            check_platform(compute_layout(load_profile("default")), "x86")


class ClusterMemoryTest(unittest.TestCase):
    """mpirun --cluster-memory SIZE: its forms, the profile key's rules,
    the layout it makes and the platforms' limits."""

    def test_forms(self):
        for spec, mb in (("64M", 64), ("512m", 512), ("1G", 1024), ("2g", 2048), ("512", 512),
                         ("2", 2), ("96MB", 96), ("128MiB", 128), ("1GB", 1024), ("1gib", 1024)):
            with self.subTest(spec=spec):
                self.assertEqual(parse_cluster_memory(spec), mb)

    def test_bad_forms(self):
        for spec in ("", "M", "1K", "4096k", "1T", "1.5G", "-2M", "+2M", "0x10M", "1 G", " 64M",
                     "64M ", "\u00b2M", "1Gi", "1MG"):
            with self.subTest(spec=spec), self.assertRaises(OptionError) as cm:
                parse_cluster_memory(spec)
            self.assertEqual(str(cm.exception),
                             f"--cluster-memory needs a size (e.g. 64M, 512M or 1G; M: MiB, G: "
                             f"GiB, a bare number: MiB), got '{spec}'")

    def test_the_profile_keys_rules(self):
        """At least 2 MiB and a multiple of 2 MiB, said in the words the
        profile key's own check uses."""
        for spec, mb, problem in (("3M", 3, "must be a multiple of 2, got 3"),
                                  ("1025", 1025, "must be a multiple of 2, got 1025"),
                                  ("0", 0, "must be at least 2, got 0"),
                                  ("0G", 0, "must be at least 2, got 0"),
                                  ("1M", 1, "must be at least 2, got 1")):
            with self.subTest(spec=spec):
                with self.assertRaises(OptionError) as cm:
                    parse_cluster_memory(spec)
                self.assertEqual(str(cm.exception),
                                 f"--cluster-memory {spec}: a compute cluster's memory, in MiB "
                                 f"as the profile key 'compute_memory_mb', {problem}")
                with self.assertRaises(ProfileError) as cm:
                    parse_profile(profile(compute_memory_mb=mb))
                self.assertTrue(str(cm.exception).endswith(problem), str(cm.exception))

    def test_replaces_the_profiles_compute_windows(self):
        layout = compute_layout(load_profile("default"), cluster_memory="1G")
        self.assertEqual(layout.cluster_memory, "1G")
        self.assertEqual(layout.profile.compute_memory_mb, 1024)
        self.assertEqual([(c.window_base, c.window_size) for c in layout.clusters],
                         [(0x80200000, 8 * MIB), (0x80A00000, 1 << 30), (0xC0A00000, 1 << 30),
                          (0x100A00000, 1 << 30), (0x140A00000, 1 << 30)])
        self.assertEqual((layout.fabric_base, layout.ram_mb), (0x180A00000, 4114))
        small = compute_layout(load_profile("mppa256"), cluster_memory="4M")
        self.assertTrue(all(c.window_size == 4 * MIB for c in small.clusters[4:]))
        self.assertTrue(all(c.window_size == 16 * MIB for c in small.clusters[:4]))
        self.assertEqual(compute_layout(load_profile("default")).cluster_memory, "")

    def test_qemu_ram_within_the_hosts(self):
        layout = compute_layout(load_profile("default"), cluster_memory="1G")
        check_memory(layout, "qemu-riscv64", host_mb=4114)
        with self.assertRaises(OptionError) as cm:
            check_memory(layout, "qemu-riscv64", host_mb=2048)
        self.assertEqual(str(cm.exception),
                         "--cluster-memory 1G: QEMU's machine needs 4114 MiB of RAM (4 compute "
                         "clusters x 1024 MiB, 1 I/O cluster x 8 MiB, 4 MiB of fabric, the "
                         "firmware and the device tree), more than the host's 2048 MiB "
                         "(MemTotal, /proc/meminfo); at most 506M per compute cluster fits")
        # What the hint says fits does, and 2 MiB more does not.
        check_memory(compute_layout(load_profile("default"), cluster_memory="506M"),
                     "qemu-riscv64", host_mb=2048)
        with self.assertRaises(OptionError):
            check_memory(compute_layout(load_profile("default"), cluster_memory="508M"),
                         "qemu-riscv64", host_mb=2048)
        # linux64's memory is each cluster's memfd: no such limit.
        check_memory(compute_layout(load_profile("default"), cluster_memory="8G"), "linux64",
                     host_mb=2048)

    def test_a_profiles_own_size_is_the_profiles_fault(self):
        layout = compute_layout(parse_profile(profile(compute_memory_mb=1024)))
        with self.assertRaises(ToolError) as cm:
            check_memory(layout, "qemu-riscv64", host_mb=2048)
        self.assertNotIsInstance(cm.exception, OptionError)
        self.assertTrue(str(cm.exception).startswith("profile 'default': QEMU's machine needs "
                                                     "4114 MiB of RAM"), str(cm.exception))
        self.assertNotIn("at most", str(cm.exception))

    def test_windows_clear_of_the_ranks_aliases(self):
        for platform in ("qemu-riscv64", "linux64"):
            with self.subTest(platform=platform):
                check_memory(compute_layout(load_profile("default"), platform,
                                            cluster_memory="15868M"), platform, host_mb=1 << 30)
                over = compute_layout(load_profile("default"), platform, cluster_memory="15870M")
                with self.assertRaises(OptionError) as cm:
                    check_memory(over, platform, host_mb=1 << 30)
                self.assertEqual(str(cm.exception),
                                 "--cluster-memory 15870M: its windows and fabric "
                                 "0x80200000..0x1000600000 overlap the ranks' aliases "
                                 "0x1000000000..0x1440000000; at most 15868M per compute cluster "
                                 "fits")

    def test_check_platform_checks_memory(self):
        layout = compute_layout(load_profile("default"), cluster_memory="64G")
        for platform in ("qemu-riscv64", "linux64"):
            with self.subTest(platform=platform), self.assertRaisesRegex(OptionError,
                                                                         "ranks' aliases"):
                check_platform(layout, platform)

    def test_host_memory(self):
        with tempfile.NamedTemporaryFile("w", suffix=".meminfo") as f:
            f.write("MemFree:         1000 kB\nMemTotal:       24684000 kB\n")
            f.flush()
            self.assertEqual(host_memory_mb(f.name), 24105)
        self.assertIsNone(host_memory_mb("/no/such/meminfo"))


class CapacityTest(unittest.TestCase):
    def setUp(self):
        self.layout = compute_layout(load_profile("default"))

    def test_fits(self):
        for np in (1, 8, 16):
            check_capacity(self.layout, np)

    def test_too_many_processes(self):
        for np in (17, 21):
            with self.subTest(np=np), self.assertRaises(ToolError) as cm:
                check_capacity(self.layout, np)
            self.assertEqual(str(cm.exception), too_many_processes(np))

    def test_zero_processes(self):
        with self.assertRaisesRegex(ToolError, "at least 1"):
            check_capacity(self.layout, 0)


class PerClusterTest(unittest.TestCase):
    """--map-by ppr:N:cluster: the layout's slots per cluster become N."""

    def setUp(self):
        self.layout = compute_layout(load_profile("default"))

    def test_slots_and_capacity(self):
        for n in (1, 2, 4):
            with self.subTest(n=n):
                layout = per_cluster_layout(self.layout, n)
                self.assertEqual((layout.slots_per_cluster, layout.capacity, layout.ppr),
                                 (n, 4 * n, n))
                # The machine is the same.
                self.assertEqual((layout.clusters, layout.harts), (self.layout.clusters,
                                                                   self.layout.harts))
        self.assertEqual(self.layout.ppr, 0)      # the profile's layout is left alone

    def test_mppa256_12_per_cluster(self):
        layout = per_cluster_layout(compute_layout(load_profile("mppa256")), 12)
        self.assertEqual(layout.capacity, 192)
        check_capacity(layout, 192)
        with self.assertRaises(ToolError) as cm:
            check_capacity(layout, 193)
        self.assertEqual(str(cm.exception),
                         "193 processes requested but --map-by ppr:12:cluster places at most "
                         "192: 12 on each of the 16 compute clusters of profile 'mppa256'")

    def test_n_beyond_the_cores_refused(self):
        for n in (0, 5, 100):
            with self.subTest(n=n), self.assertRaises(OptionError) as cm:
                per_cluster_layout(self.layout, n)
            self.assertEqual(str(cm.exception),
                             f"--map-by ppr:{n}:cluster: N must be 1 to 4, the MPI processes a "
                             f"compute cluster of profile 'default' can host (5 cores, the "
                             f"master core runs the kernel)")

    def test_too_many_processes(self):
        layout = per_cluster_layout(self.layout, 2)
        check_capacity(layout, 8)
        with self.assertRaises(ToolError) as cm:
            check_capacity(layout, 9)
        self.assertEqual(str(cm.exception),
                         "9 processes requested but --map-by ppr:2:cluster places at most 8: "
                         "2 on each of the 4 compute clusters of profile 'default'")
        # N = the profile's slots: the same limit as without ppr, said as ppr.
        with self.assertRaisesRegex(ToolError, r"^17 processes requested but --map-by "
                                               r"ppr:4:cluster places at most 16"):
            check_capacity(per_cluster_layout(self.layout, 4), 17)


if __name__ == "__main__":
    unittest.main()
