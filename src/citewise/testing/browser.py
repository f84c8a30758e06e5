"""Headless Chromium for tests that look at what a person sees (report.html, the web page).

Uses Debian's ``chromium`` and ``chromium-driver`` (``.ci/browser`` installs them) through
selenium with an explicit driver path, so selenium never tries to download a driver. The flags
keep Chromium off the network: this machine reaches nothing outside loopback.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CHROMIUM_FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1280,1600",
)


def browser_missing() -> str:
    """Why a browser test cannot run here ('' when it can)."""
    missing = [name for name in ("chromium", "chromedriver") if shutil.which(name) is None]
    if missing:
        return f"{', '.join(missing)} not installed. Fix: bash .ci/browser"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium not installed. Fix: make dev"
    return ""


@contextmanager
def headless_chromium(*, logs: bool = True) -> Iterator[Any]:
    """A selenium WebDriver on headless Chromium with a fresh profile; quits on exit.
    With ``logs``, the browser console can be read with ``driver.get_log('browser')``."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    profile = tempfile.mkdtemp(prefix="citewise-chromium-")
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    if logs:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(executable_path=shutil.which("chromedriver") or "chromedriver")
    driver = webdriver.Chrome(service=service, options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
