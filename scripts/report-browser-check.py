#!/usr/bin/env python3
"""Loads an ldagpu report in headless Chromium through ChromeDriver (the WebDriver protocol,
Python's standard library only), fails on any console message of level warning or worse or a
page error, checks that the page's script ran (the map's circles select topics, the word
finder filters, a topic it dimmed still shows when selected), and saves screenshots.

usage: report-browser-check.py REPORT.html OUTDIR EXPECTED_TOPICS
"""
import base64
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Driver:
    def __init__(self, port):
        self.base = "http://127.0.0.1:%d" % port
        self.session = None

    def call(self, method, path, body=None):
        url = self.base + (path if self.session is None else "/session/%s%s" % (self.session, path))
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read().decode())["value"]
        except urllib.error.HTTPError as e:
            raise SystemExit("WebDriver %s %s: %s" % (method, path, e.read().decode()[:500]))

    def start(self, chromium):
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium, "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--hide-scrollbars", "--force-device-scale-factor=1", "--window-size=1400,1000"]},
            "goog:loggingPrefs": {"browser": "ALL"}}}}
        self.session = self.call("POST", "/session", caps)["sessionId"]

    def script(self, source, *args):
        return self.call("POST", "/execute/sync", {"script": source, "args": list(args)})

    def logs(self):
        return self.call("POST", "/se/log", {"type": "browser"})

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.call("GET", "/screenshot")))


def main():
    report, outdir, topics = os.path.abspath(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    os.makedirs(outdir, exist_ok=True)
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    port = free_port()
    service = subprocess.Popen([os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"), "--port=%d" % port],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    failures = []
    try:
        d = Driver(port)
        for _ in range(100):  # up to 10 s for ChromeDriver to listen
            try:
                urllib.request.urlopen(d.base + "/status", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        d.start(chromium)
        d.call("POST", "/url", {"url": "file://" + report})
        for _ in range(100):
            if d.script("return document.readyState") == "complete":
                break
            time.sleep(0.1)
        state = d.script("""
            return {
              circles: document.querySelectorAll('#mapsvg circle.t').length,
              cards: document.querySelectorAll('#cards article.topic').length,
              panel: document.querySelectorAll('#panel article.topic').length,
              selected: document.querySelectorAll('#mapsvg circle.sel').length,
              charts: document.querySelectorAll('.charts svg path').length,
              external: Array.prototype.filter.call(document.querySelectorAll('[src],[href]'), function (e) {
                  var u = e.getAttribute('src') || e.getAttribute('href'); return !/^#/.test(u); }).length
            };""")
        print("page:", json.dumps(state))
        if state["circles"] != topics or state["cards"] != topics:
            failures.append("expected %d circles and topic cards" % topics)
        if state["panel"] != 1 or state["selected"] != 1:
            failures.append("the script did not select the largest topic on load")
        if state["charts"] < 2:
            failures.append("the training charts have no curves")
        if state["external"]:
            failures.append("the page refers to %d outside resources" % state["external"])
        d.screenshot(os.path.join(outdir, "report-top.png"))
        # Select another topic on the map by a real click, then find a word.
        circle = d.call("POST", "/element", {"using": "css selector", "value": "#mapsvg circle.t:last-of-type"})
        element = list(circle.values())[0]
        d.call("POST", "/element/%s/click" % element, {})
        picked = d.script("""var c = document.querySelector('#mapsvg circle.sel');
            var p = document.querySelector('#panel article.topic');
            return [c && c.getAttribute('data-topic'), p && p.getAttribute('data-topic')];""")
        print("clicked topic:", picked)
        if picked[0] is None or picked[0] != picked[1]:
            failures.append("clicking a circle did not show its topic: %s" % picked)
        word = d.script("return document.querySelector('#cards td.w').textContent")
        box = list(d.call("POST", "/element", {"using": "css selector", "value": "#find"}).values())[0]
        d.call("POST", "/element/%s/value" % box, {"text": word})
        shown = d.script("return document.getElementById('shown').textContent")
        print("finding %r: %s" % (word, shown))
        if " of %d topics" % topics not in shown:
            failures.append("the word finder did not filter: %r" % shown)
        # A topic the finder dimmed, selected by a real click on its circle, shows in the panel.
        dimmed = d.script("var c = document.querySelector('#mapsvg circle.t.dim');"
                          "return c && c.getAttribute('data-topic');")
        if dimmed is None:
            failures.append("finding %r dimmed no circle: nothing to select (the report lists too many words)" % word)
        else:
            circle = d.call("POST", "/element", {"using": "css selector",
                                                 "value": "#mapsvg circle.t[data-topic='%s']" % dimmed})
            d.call("POST", "/element/%s/click" % list(circle.values())[0], {})
            shown_topic = d.script("var p = document.querySelector('#panel article.topic');"
                                   "return p && getComputedStyle(p).display !== 'none' && p.offsetHeight > 0"
                                   " ? p.getAttribute('data-topic') : null;")
            print("clicked dimmed topic %s: panel shows %s" % (dimmed, shown_topic))
            if shown_topic != dimmed:
                failures.append("clicking dimmed topic %s left the panel showing %s" % (dimmed, shown_topic))
        d.script("var f = document.getElementById('find'); f.value = ''; f.dispatchEvent(new Event('input'));"
                 "window.scrollTo(0, 0);")
        if d.script("return document.getElementById('shown').textContent") != "":
            failures.append("clearing the word finder did not show every topic again")
        d.screenshot(os.path.join(outdir, "report-clicked.png"))
        for section in ("map", "training"):
            el = list(d.call("POST", "/element", {"using": "css selector", "value": "#" + section}).values())[0]
            with open(os.path.join(outdir, "report-%s.png" % section), "wb") as f:
                f.write(base64.b64decode(d.call("GET", "/element/%s/screenshot" % el)))
        height = d.script("return Math.min(document.documentElement.scrollHeight, 8000)") + 200  # + the window frame
        d.call("POST", "/window/rect", {"width": 1400, "height": height})
        d.script("window.scrollTo(0, 0);")  # the element screenshots scrolled the page
        d.screenshot(os.path.join(outdir, "report-full.png"))
        for entry in d.logs():
            print("console:", entry.get("level"), entry.get("message"))
            if entry.get("level") in ("SEVERE", "WARNING"):
                failures.append("console: %s" % entry.get("message"))
        d.call("DELETE", "", None)
    finally:
        service.terminate()
        service.wait(timeout=10)
    for f in failures:
        print("FAIL:", f)
    print("screenshots in", outdir)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
