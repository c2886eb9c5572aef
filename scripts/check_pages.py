#!/usr/bin/env python3
"""Opens report pages in a real headless browser and checks what a reader
meets: no console error or failed page script, and nothing wider than the
window (no sideways scrolling) at 1280 px.

    python scripts/check_pages.py [PAGE.html ...]

Without arguments it checks the reproduction index and one paper's page
(docs/reproduction/index.html, docs/reproduction/sqcc/report.html: the
longest report). It drives Debian's chromium-headless-shell (apt package
of that name; CHROMIUM=PATH for another build) with Playwright from PyPI,
and is run by .ci/run. Exit status 1 lists every page that failed and why.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_PAGES = ["docs/reproduction/index.html", "docs/reproduction/sqcc/report.html"]
WIDTH, HEIGHT = 1280, 900


def browser_path() -> str:
    """The Chromium to drive: $CHROMIUM, else Debian's headless shell."""
    for cand in [os.environ.get("CHROMIUM"), shutil.which("chromium-headless-shell"), shutil.which("chromium")]:
        if cand and Path(cand).exists():
            return cand
    sys.exit("check_pages: no Chromium found: apt-get install chromium-headless-shell, or set CHROMIUM=PATH")


def overflowing(page) -> list:
    """Elements whose right edge passes the window, outermost first (at most 5)."""
    return page.evaluate(
        """(width) => {
            const out = [];
            for (const el of document.body.querySelectorAll('*')) {
                const r = el.getBoundingClientRect();
                if (r.right > width + 1 && r.width > 0) {
                    // report an element once, not each of its children
                    if (!out.some(o => o.el.contains(el))) {
                        out.push({el, what: el.tagName.toLowerCase() + (el.id ? '#' + el.id : ''), right: Math.round(r.right)});
                    }
                }
                if (out.length >= 5) break;
            }
            return out.map(o => `${o.what} ends at ${o.right} px`);
        }""",
        WIDTH,
    )


def check(page, path: Path) -> list:
    """The problems of one page: console errors, script errors, overflow."""
    problems = []
    page.on("console", lambda m: m.type == "error" and problems.append(f"console error: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"script error: {e}"))
    page.goto(path.as_uri(), wait_until="load")
    scroll = page.evaluate("document.documentElement.scrollWidth")
    if scroll > WIDTH:
        problems.append(f"scrolls sideways: {scroll} px wide in a {WIDTH} px window")
        problems += ["  " + o for o in overflowing(page)]
    # the page has its parts: a heading, and for a report the contents and folds
    if page.locator("h1").count() == 0:
        problems.append("no <h1> heading")
    return problems


def main(argv: list) -> int:
    pages = [Path(p) if Path(p).is_absolute() else ROOT / p for p in (argv or DEFAULT_PAGES)]
    missing = [str(p) for p in pages if not p.is_file()]
    if missing:
        print(f"check_pages: no such page: {', '.join(missing)}", file=sys.stderr)
        return 1
    failed = 0
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=browser_path(), args=["--no-sandbox"])
        for p in pages:
            page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            problems = check(page, p)
            page.close()
            rel = p.relative_to(ROOT) if p.is_relative_to(ROOT) else p
            if problems:
                failed += 1
                print(f"FAIL {rel}")
                for x in problems:
                    print(f"  {x}")
            else:
                print(f"ok   {rel}: no console error, fits {WIDTH} px")
        browser.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
