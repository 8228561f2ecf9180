"""Runs the root README's "Train with Relax from Python" section as a user pastes it, and the stand-in block
of "Pointing it at a real SGLang server" (``relax-sglang-standin`` as the server, then ``relax rollout``).

From README.md it takes, verbatim: the ``relax serve`` command, the ``pip install ./clients/python`` line and
the Python trainer loop. In a fresh directory holding a copy of ``clients/python`` and links to the built
``apps/`` and ``examples/`` (the README's commands are relative to the repository root), it creates a venv,
runs the install line with that venv's ``pip`` (the setuptools backend comes from pip's configured index),
starts the serve command in the background and runs the loop with the venv's Python, which has only the
installed client (no ``PYTHONPATH``). The engine is the stand-in (``--engine-policy``: a scripted policy,
NOT a model). Then it starts the same serve command again on the same ``run/`` dir and checks that the
banner says the token was reused and that the next rollout id is 3.

The README's commands use port 8000, so each run happens in a network namespace of its own
(``unshare --net``, root) whose loopback nothing else uses; it needs ``pnpm build`` first.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
README = os.path.join(REPO, "README.md")
SECTION = "## Train with Relax from Python"
NEEDS = [
    os.path.join(REPO, "apps", "gateway", "dist", "cli.js"),
    os.path.join(REPO, "examples", "gsm8k-calculator", "dist", "agent.js"),
    os.path.join(REPO, "examples", "gsm8k-calculator", "dist", "policy.js"),
]


def readme_blocks(language, section=SECTION):
    """The fenced blocks of ``language`` inside one section of the README, in order."""
    with open(README, encoding="utf-8") as handle:
        text = handle.read()
    start = text.index(section)
    end = text.index("\n## ", start + len(section))
    return re.findall(r"^```%s\n(.*?)^```$" % language, text[start:end], re.S | re.M)


def in_own_netns(script, cwd, timeout):
    """Runs ``script`` (bash) in a new network namespace with only its loopback up."""
    return subprocess.run(
        ["unshare", "--net", "bash", "-c", "ip link set lo up && " + script],
        cwd=cwd, capture_output=True, text=True, timeout=timeout,
    )  # fmt: skip


def work_dir(test):
    """A fresh directory with links to the built ``apps/``, ``examples/``, ``node_modules/``, ``packages/``."""
    for path in NEEDS:
        if not os.path.exists(path):
            raise AssertionError("%s is missing: run `pnpm build` at the repository root" % path)
    work = tempfile.mkdtemp(prefix="relax-readme-")
    os.chmod(work, 0o755)  # agents may run under another uid of the launcher's pool: they read examples/ here
    if os.environ.get("RELAX_KEEP_TEST_DIRS") != "1":
        test.addCleanup(shutil.rmtree, work, True)
    for name in ("apps", "examples", "node_modules", "packages"):
        os.symlink(os.path.join(REPO, name), os.path.join(work, name))
    return work


class ReadmeStandinTest(unittest.TestCase):
    def test_the_real_sglang_section_runs_first_against_relax_sglang_standin(self):
        """The section's first block: the stand-in's own CLI as the SGLang server, then `relax rollout --sglang-url`."""
        blocks = readme_blocks("sh", "## Pointing it at a real SGLang server")
        self.assertEqual(len(blocks), 2, "the section's blocks changed")
        lines = blocks[0].splitlines()
        self.assertEqual(lines[0], "pnpm build && mkdir -p out")  # built already: the test needs that build
        lines[0] = "mkdir -p out"
        self.assertTrue(lines[1].startswith("node packages/standin/dist/cli.js "), lines[1])
        work = work_dir(self)
        result = in_own_netns("\n".join(lines), work, 600)
        self.assertEqual(result.returncode, 0, result.stdout[-3000:] + result.stderr[-3000:])
        self.assertIn("inference backend: checking http://127.0.0.1:30000 (/health)", result.stderr + result.stdout)
        self.assertIn("backend   SGLang at http://127.0.0.1:30000", result.stdout)
        with open(os.path.join(work, "out", "standin-rows-0.jsonl"), encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
        with open(os.path.join(work, "out", "standin.log"), encoding="utf-8") as handle:
            self.assertIn("not a model", handle.read())
        self.assertEqual(len(rows), 4 * 4)  # --rollout-batch-size 4 × --n-samples-per-prompt 4, none dropped
        for row in rows:
            self.assertEqual(len(row["tokens"]), row["prompt_length"] + row["response_length"])
            self.assertEqual(len(row["loss_mask"]), row["response_length"])


class ReadmeSnippetTest(unittest.TestCase):
    def test_the_readme_python_section_runs_as_pasted(self):
        shell = readme_blocks("sh")
        serve = [block for block in shell if block.startswith("node apps/gateway/dist/cli.js serve ")]
        install = [block for block in shell if block.startswith("pip install")]
        loop = readme_blocks("python")
        self.assertEqual((len(serve), len(install), len(loop)), (1, 1, 1), "the section's blocks changed")
        self.assertEqual(install[0], "pip install ./clients/python\n")

        work = work_dir(self)
        shutil.copytree(
            os.path.join(REPO, "clients", "python"), os.path.join(work, "clients", "python"),
            ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "node_modules"),
        )  # fmt: skip
        venv = os.path.join(work, "venv")
        subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=120)
        env_path = "%s:%s" % (os.path.join(venv, "bin"), os.environ["PATH"])
        installed = subprocess.run(
            ["bash", "-c", install[0]], cwd=work, capture_output=True, text=True, timeout=300,
            env={**os.environ, "PATH": env_path, "PYTHONPATH": ""},
        )  # fmt: skip
        self.assertEqual(installed.returncode, 0, installed.stdout[-2000:] + installed.stderr[-2000:])
        with open(os.path.join(work, "trainer.py"), "w", encoding="utf-8") as handle:
            handle.write(loop[0])
        with open(os.path.join(work, "restart.py"), "w", encoding="utf-8") as handle:
            handle.write(
                "from relax_client import RelaxClient\n"
                "client = RelaxClient('http://127.0.0.1:8000', token_file='run/control-token')\n"
                "print('next', client.wait_ready().next_rollout_id)\n"
            )

        def run(python_file, log_name):
            script = (
                "export PATH=%s PYTHONPATH=; (%s) > %s 2>&1 & serve=$!; "
                "python %s; code=$?; kill -TERM $serve; wait $serve; exit $code"
            ) % (env_path, serve[0].replace("\\\n", " ").strip(), log_name, python_file)
            result = in_own_netns(script, work, 600)
            with open(os.path.join(work, log_name), encoding="utf-8") as handle:
                log = handle.read()
            self.assertEqual(result.returncode, 0, result.stdout[-3000:] + result.stderr[-3000:] + log[-3000:])
            return result.stdout, log

        out, log = run("trainer.py", "serve-1.log")
        token_path = os.path.join(work, "run", "control-token")
        self.assertIn("token generated, in %s (mode 0600)" % token_path, log)
        self.assertEqual(len(re.findall(r"^step \d+ rows \d+ dropped \d+$", out, re.M)), 3, out)
        for rollout_id in range(3):
            with open(os.path.join(work, "run", "rows-%d.jsonl" % rollout_id), encoding="utf-8") as handle:
                rows = [json.loads(line) for line in handle if line.strip()]
            match = re.search(r"^step %d rows (\d+) dropped (\d+)$" % rollout_id, out, re.M)
            self.assertIsNotNone(match, out)
            self.assertEqual(int(match.group(1)), len(rows))
            self.assertEqual(len(rows) + 4 * int(match.group(2)), 8 * 4)  # 8 Groups x 4 samples
            self.assertGreater(len(rows), 0)
            for row in rows:  # the loop labelled step N with version vN; the update came after the step
                self.assertEqual(row["weight_versions"], ["v%d" % rollout_id])
                self.assertEqual(len(row["tokens"]), row["prompt_length"] + row["response_length"])
            with open(os.path.join(work, "run", "checkpoints", "step-%d" % rollout_id, "standin-checkpoint.json")) as handle:
                checkpoint = json.load(handle)
            self.assertEqual(checkpoint, {"rows": len(rows), "tokens": sum(len(row["tokens"]) for row in rows)})

        out, log = run("restart.py", "serve-2.log")
        self.assertIn("token reused from %s (mode 0600)" % token_path, log)
        self.assertEqual(out.strip().splitlines()[-1], "next 3")


if __name__ == "__main__":
    unittest.main()
