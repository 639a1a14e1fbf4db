#!/usr/bin/python3
"""Every test method of tests/test_target.py is registered with CTest: CTest
runs them one by one (tools/CMakeLists.txt, TOOLS_TARGET_TESTS), so a method
missing from that list would never run."""
import os
import re
import unittest

import toolsupport
import test_target


def registered():
    """Class.method names in TOOLS_TARGET_TESTS of tools/CMakeLists.txt."""
    with open(os.path.join(toolsupport.TOOLS, "CMakeLists.txt")) as f:
        text = f.read()
    body = re.search(r"set\(TOOLS_TARGET_TESTS\s(.*?)\)", text, re.S).group(1)
    return set(body.split())


def defined():
    """Class.method names of the test methods in tests/test_target.py."""
    loader = unittest.TestLoader()
    names = set()
    for cls in vars(test_target).values():
        if isinstance(cls, type) and issubclass(cls, unittest.TestCase):
            names.update(f"{cls.__name__}.{m}" for m in loader.getTestCaseNames(cls))
    return names


class RegistryTest(unittest.TestCase):
    def test_every_target_test_is_registered(self):
        self.assertEqual(defined() - registered(), set())

    def test_every_registered_test_exists(self):
        self.assertEqual(registered() - defined(), set())


if __name__ == "__main__":
    unittest.main()
