"""Headless Chromium for the tests that open pages in a real browser (the playground, an archive's
report): Debian's `chromium` and its `chromedriver` (which `make test` installs when missing), driven
by Selenium, which never downloads a browser here. Without them a browser test module is skipped on a
developer's machine and fails under CI (`CI` set): it never passes by not running. Screenshots go
under `tests/artifacts/` (or `$REFEREE_ARTIFACTS`)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


def artifacts(kind: str) -> Path:
    """Where a kind of test (`playground`, `report`) saves its screenshots."""
    return Path(os.environ.get("REFEREE_ARTIFACTS") or Path(__file__).resolve().parents[1] / "artifacts") / kind


def require_browser() -> None:
    """Skips the calling test module without a browser, or fails it under CI."""
    if CHROMIUM and CHROMEDRIVER:
        return
    if os.environ.get("CI"):
        pytest.fail("the browser tests need Debian's chromium and chromium-driver (make test installs them)",
                    pytrace=False)
    pytest.skip("no chromium/chromedriver here: `make test` installs them", allow_module_level=True)


def chromium() -> Iterator[Any]:
    """A headless Chromium driven by Selenium, for a module-scoped fixture; quit at the end."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # what the policy refused is logged
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.set_script_timeout(30)
    yield driver
    driver.quit()
