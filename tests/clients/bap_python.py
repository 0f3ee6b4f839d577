"""Drive `pinpoint serve` with the official BAP Python SDK (browser-agent-protocol 0.9.0), unchanged.

Usage: python bap_python.py PATH/TO/pinpoint   (run by .ci/run after `cargo test`)
Starts `pinpoint serve --port 0 --no-store`, serves fixtures/ on 127.0.0.1:0,
runs a full client session and prints `N passed, M failed`.
"""
import asyncio
import base64
import functools
import http.server
import os
import subprocess
import sys
import threading

from browseragentprotocol import BAPClient
from browseragentprotocol.types.selectors import css, label, ref

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "..", "fixtures")
results = []


def check(name, cond, detail=""):
    results.append((name, bool(cond)))
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else f"  {detail}"), flush=True)


def fixture_server():
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = functools.partial(Quiet, directory=FIXTURES)
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


async def session(ws_url, base):
    async with BAPClient(ws_url, timeout=60.0) as c:
        launch = await c.launch(browser="chromium", headless=True)
        check("launch returns browser", launch.browser == "chromium" and launch.version, launch)
        page = await c.create_page()
        check("create_page", page.id.startswith("page-"), page)
        nav = await c.navigate(base + "/forms.html")
        check("navigate status 200", getattr(nav, "status", 200) == 200, nav)
        obs = await c.observe(include_interactive_elements=True, include_screenshot=True,
                              annotate_screenshot=True, max_elements=50)
        els = obs.interactive_elements or []
        check("observe elements", 20 < len(els) <= 50, len(els))
        check("annotated png", obs.screenshot is not None and obs.screenshot.annotated
              and base64.b64decode(obs.screenshot.data)[:4] == b"\x89PNG")
        check("annotation map", obs.annotation_map and len(obs.annotation_map) > 0)
        by_name = {e.name: e.ref for e in els if e.name}
        await c.click(ref(by_name["Preview"]))
        check("click by ref", True)
        await c.fill(ref(by_name["Full name"]), "Ada Lovelace")
        el = await c.element(css("#f-text"), ["value"])
        props = el.properties if hasattr(el, "properties") else {}
        check("fill by ref visible in element()", props.get("value") == "Ada Lovelace", el)
        act = await c.act([
            {"action": "action/check", "params": {"selector": {"type": "ref", "ref": by_name["I accept the terms"]}}},
            {"action": "action/fill", "params": {"selector": label("Email address").model_dump(by_alias=True, exclude_none=True), "value": "ada@example.com"}},
            {"action": "action/select", "params": {"selector": {"type": "css", "value": "#f-country"}, "values": ["fr"]}},
        ])
        check("act three steps", act.success and act.completed == 3, act)
        content = await c.content("markdown")
        check("content markdown", "Full name" in content.content, content.content[:200])
        tree = await c.accessibility()
        check("accessibility tree list", isinstance(tree.tree, list) and len(tree.tree) == 1)
        shot = await c.screenshot()
        check("screenshot", shot.width > 0 and shot.height > 0)
        await c.navigate(base + "/shop.html")
        ex = await c.extract("the products", {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "price": {"type": "number"}}}}, mode="list")
        check("extract list", ex.success and len(ex.data) == 6 and ex.data[0]["price"] == 89.0, ex)
        try:
            await c.click(css("#does-not-exist"), {"timeout": 200})
            check("missing element raises", False)
        except Exception as e:  # the SDK's typed ElementNotFound
            check("missing element raises typed error", "ElementNotFound" in type(e).__name__ or "-32012" in str(e), repr(e))


def main():
    binary = sys.argv[1]
    srv = fixture_server()
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    proc = subprocess.Popen([binary, "serve", "--port", "0", "--no-store"], stdout=subprocess.PIPE, text=True)
    try:
        addr = proc.stdout.readline().strip()
        asyncio.run(asyncio.wait_for(session(f"ws://{addr}", base), 240))
    except Exception as e:  # report, never hang
        check("session ran to the end", False, repr(e))
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        srv.shutdown()
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    print(f"bap-python: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
