#!/usr/bin/env python3
"""A scripted LSP client for `perflint server`: real JSON-RPC messages with Content-Length framing
over the server's stdin/stdout, as an editor sends them (initialize, didOpen, didChange, codeAction,
hover, didClose, shutdown, exit), and the protocol's error cases. Standard library only.

Usage: test_server.py PATH/TO/perflint
"""
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import unittest

PERFLINT = None
TIMEOUT = 60  # seconds for any one answer: generous for a loaded machine, never a hang

TRAIN = (
    "import torch\n"
    "from torch.utils.data import DataLoader\n"
    "torch.backends.cuda.matmul.allow_tf32 = True\n"
    'x = "\U0001F680"; loader = DataLoader(ds, batch_size=8)\n'
    "model = Net().cuda()\n"
    "for xb, yb in loader:\n"
    "    loss = model(xb.cuda(), yb.cuda())\n"
    "    loss.backward()\n"
)


def utf16_len(s):
    return len(s.encode("utf-16-le")) // 2


def apply_edits(text, edits):
    """Applies LSP TextEdits (UTF-16 positions) to text, last first."""
    lines = text.splitlines(keepends=True) or [""]

    def offset(pos):
        if pos["line"] >= len(lines):
            return len(text)
        start = sum(len(l) for l in lines[: pos["line"]])
        line = lines[pos["line"]].rstrip("\r\n")
        units = 0
        for i, ch in enumerate(line):
            if units >= pos["character"]:
                return start + i
            units += utf16_len(ch)
        return start + len(line)

    spans = sorted(((offset(e["range"]["start"]), offset(e["range"]["end"]), e["newText"]) for e in edits), reverse=True)
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


class Client:
    def __init__(self, cwd, args=()):
        self.proc = subprocess.Popen([PERFLINT, "server", *args], cwd=cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.inbox = queue.Queue()
        self.held = []  # messages read while waiting for something else
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.inbox.put(None)
                    return
                line = line.decode("ascii").rstrip("\r\n")
                if not line:
                    break
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            body = out.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body.decode("utf-8")))

    def send_raw(self, body):
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, message):
        message["jsonrpc"] = "2.0"
        self.send_raw(json.dumps(message).encode("utf-8"))

    def notify(self, method, params):
        self.send({"method": method, "params": params})

    def request(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        message = {"id": rid, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self.wait(lambda m: m.get("id") == rid and "method" not in m)

    def wait(self, match):
        for i, m in enumerate(self.held):
            if match(m):
                return self.held.pop(i)
        while True:
            m = self.inbox.get(timeout=TIMEOUT)
            if m is None:
                raise AssertionError("the server closed its output; stderr: " + self.stderr())
            if match(m):
                return m
            self.held.append(m)

    def diagnostics(self, uri, version=None):
        def match(m):
            p = m.get("params", {})
            return (m.get("method") == "textDocument/publishDiagnostics" and p.get("uri") == uri
                    and (version is None or p.get("version") == version))
        return self.wait(match)["params"]["diagnostics"]

    def stderr(self):
        """Everything the server logged; closes its input and waits for it to end."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return "(it did not exit)"
        return self.proc.stderr.read().decode("utf-8", "replace")

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except (OSError, ValueError):
                pass

    def finish(self):
        """shutdown + exit; returns the exit code."""
        self.request("shutdown")
        self.notify("exit", None)
        return self.proc.wait(timeout=TIMEOUT)


def initialize(client, root):
    r = client.request("initialize", {"processId": os.getpid(), "rootUri": "file://" + root, "capabilities": {}})
    client.notify("initialized", {})
    return r


class ServerTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="perflint-lsp-")
        self.root = os.path.realpath(self.dir.name)
        with open(os.path.join(self.root, "pyproject.toml"), "w") as f:
            f.write('[tool.perflint]\nignore = ["PFL402"]\n')
        self.path = os.path.join(self.root, "my train.py")  # a space: the URI is percent-encoded
        self.uri = "file://" + self.path.replace(" ", "%20")
        self.client = Client(self.root)
        self.addCleanup(self.dir.cleanup)
        self.addCleanup(self.client.close)

    def open(self, text, uri=None, version=1):
        self.client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri or self.uri, "languageId": "python", "version": version, "text": text}})
        return self.client.diagnostics(uri or self.uri, version)

    def test_a_whole_session(self):
        init = initialize(self.client, self.root)
        caps = init["result"]["capabilities"]
        self.assertEqual(caps["textDocumentSync"]["change"], 1)
        self.assertTrue(caps["hoverProvider"])
        self.assertIn("quickfix", caps["codeActionProvider"]["codeActionKinds"])
        self.assertEqual(init["result"]["serverInfo"]["name"], "perflint")

        diags = self.open(TRAIN)
        by_code = {}
        for d in diags:
            by_code.setdefault(d["code"], []).append(d)
            self.assertEqual(d["source"], "perflint")
        # The same findings as the command line on this file, with its config (PFL402 ignored there).
        cli = subprocess.run([PERFLINT, "--output-format", "json", "--stdin-filename", self.path, "-"],
                             input=TRAIN.encode(), cwd=self.root, capture_output=True)
        expected = sorted(f["code"] for f in json.loads(cli.stdout)["findings"])
        self.assertEqual(sorted(d["code"] for d in diags), expected)
        self.assertNotIn("PFL402", by_code)
        self.assertIn("PFL102", by_code)
        # Positions in UTF-16 code units: the rocket before DataLoader is two of them.
        pfl102 = by_code["PFL102"][0]
        line = TRAIN.splitlines()[3]
        self.assertEqual(pfl102["range"]["start"], {"line": 3, "character": utf16_len(line[: line.index("DataLoader")])})
        self.assertEqual(pfl102["severity"], 2)
        self.assertIn("help:", pfl102["message"])

        # The quick fix for PFL102, applied as an editor would.
        actions = self.client.request("textDocument/codeAction", {
            "textDocument": {"uri": self.uri}, "range": pfl102["range"],
            "context": {"diagnostics": [pfl102]}})["result"]
        fix = [a for a in actions if a["kind"] == "quickfix" and a["title"].startswith("PFL102")]
        self.assertEqual(len(fix), 1, actions)
        self.assertTrue(fix[0].get("isPreferred"))
        self.assertEqual(fix[0]["diagnostics"][0]["code"], "PFL102")
        fixed = apply_edits(TRAIN, fix[0]["edit"]["changes"][self.uri])
        self.assertIn("DataLoader(ds, batch_size=8, pin_memory=True)", fixed)
        suppress = [a for a in actions if a["title"] == "Suppress PFL102 on this line"]
        self.assertEqual(len(suppress), 1, actions)
        self.assertIn("# perflint: ignore[PFL102]", apply_edits(TRAIN, suppress[0]["edit"]["changes"][self.uri]))

        # didChange with the fixed text: PFL102 is gone, and the copies' non_blocking fix appears.
        self.client.notify("textDocument/didChange", {"textDocument": {"uri": self.uri, "version": 2},
                                                      "contentChanges": [{"text": fixed}]})
        diags = self.client.diagnostics(self.uri, 2)
        codes = [d["code"] for d in diags]
        self.assertNotIn("PFL102", codes)
        self.assertIn("PFL103", codes)

        # Hover on a finding: the rule's documentation.
        pfl103 = [d for d in diags if d["code"] == "PFL103"][0]
        hover = self.client.request("textDocument/hover", {"textDocument": {"uri": self.uri},
                                                           "position": pfl103["range"]["start"]})["result"]
        self.assertEqual(hover["contents"]["kind"], "markdown")
        self.assertIn("PFL103", hover["contents"]["value"])
        self.assertIn("non_blocking", hover["contents"]["value"])
        nothing = self.client.request("textDocument/hover", {"textDocument": {"uri": self.uri},
                                                             "position": {"line": 0, "character": 0}})
        self.assertIsNone(nothing["result"])

        # Fix all, asked for by kind: the whole document, every safe fix.
        actions = self.client.request("textDocument/codeAction", {
            "textDocument": {"uri": self.uri}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "context": {"diagnostics": [], "only": ["source.fixAll"]}})["result"]
        self.assertEqual([a["kind"] for a in actions], ["source.fixAll.perflint"])
        all_fixed = apply_edits(fixed, actions[0]["edit"]["changes"][self.uri])
        self.assertIn("xb.cuda(non_blocking=True)", all_fixed)

        # A syntax error is a diagnostic too (an error, at its line).
        bad_uri = "file://" + os.path.join(self.root, "bad.py")
        bad = self.open("def f(:\n    pass\n", uri=bad_uri)
        self.assertTrue(any(d["severity"] == 1 and "syntax error" in d["message"] for d in bad), bad)

        # Closing clears the document's diagnostics.
        self.client.notify("textDocument/didClose", {"textDocument": {"uri": self.uri}})
        self.assertEqual(self.client.diagnostics(self.uri), [])

        # Unknown methods and malformed messages get JSON-RPC errors; the server keeps going.
        self.assertEqual(self.client.request("textDocument/rename", {})["error"]["code"], -32601)
        self.client.send_raw(b"{not json")
        err = self.client.wait(lambda m: "error" in m and m.get("id") is None)
        self.assertEqual(err["error"]["code"], -32700)
        self.assertEqual(self.client.request("textDocument/hover", {"textDocument": {"uri": self.uri}})["result"], None)
        bad_params = self.client.request("textDocument/codeAction", {"textDocument": {"uri": bad_uri}})
        self.assertEqual(bad_params["error"]["code"], -32602)

        # shutdown, then only exit is accepted; exit after shutdown is exit code 0.
        self.assertIsNone(self.client.request("shutdown")["result"])
        self.assertEqual(self.client.request("textDocument/hover", {})["error"]["code"], -32600)
        self.client.notify("exit", None)
        self.assertEqual(self.client.proc.wait(timeout=TIMEOUT), 0)

    def test_requests_before_initialize_and_exit_without_shutdown(self):
        self.assertEqual(self.client.request("textDocument/hover", {})["error"]["code"], -32002)
        initialize(self.client, self.root)
        self.client.notify("exit", None)
        self.assertEqual(self.client.proc.wait(timeout=TIMEOUT), 1)

    def test_a_bad_config_is_shown_not_fatal(self):
        with open(os.path.join(self.root, "pyproject.toml"), "w") as f:
            f.write('[tool.perflint]\nselekt = ["PFL1"]\n')
        initialize(self.client, self.root)
        self.client.notify("textDocument/didOpen", {"textDocument": {
            "uri": self.uri, "languageId": "python", "version": 1, "text": TRAIN}})
        shown = self.client.wait(lambda m: m.get("method") == "window/showMessage")
        self.assertEqual(shown["params"]["type"], 1)
        self.assertIn("unknown key 'selekt'", shown["params"]["message"])
        self.assertIn("did you mean 'select'", shown["params"]["message"])
        self.assertEqual(self.client.diagnostics(self.uri, 1), [])
        self.assertEqual(self.client.finish(), 0)

    def test_input_that_breaks_the_framing_ends_the_server(self):
        initialize(self.client, self.root)
        self.client.proc.stdin.write(b"Content-Type: application/json\r\n\r\n{}")
        self.client.proc.stdin.flush()
        self.assertEqual(self.client.proc.wait(timeout=TIMEOUT), 1)
        self.assertIn("without a Content-Length", self.client.stderr())


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: test_server.py PATH/TO/perflint")
    PERFLINT = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
