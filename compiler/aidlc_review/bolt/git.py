"""The only place the Bolt pipeline runs git: argv lists, no shell, paths after ``--``.

Operations on the shared repository (refs, worktree bookkeeping) are serialised by one
lock per repository because parallel units create branches and worktrees at the same time.

Every git run here has hooks (and the fsmonitor, which git also runs as a program) switched
off: an agent can write ``.git/hooks/`` or set ``core.hooksPath``, and Bolt's own commits,
ref updates and checkouts must never run what it planted (``bolt/guard.py`` reports it).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from aidlc_review.errors import AidlcError, InvalidInput
from aidlc_review.review.record.seal import forget_workspace

# Used only when neither git config nor the environment names an identity, so a run on a
# fresh machine can still record its squash commits.
FALLBACK_IDENTITY = ("-c", "user.name=aidlc-bolt", "-c", "user.email=aidlc-bolt@localhost")
NO_HOOKS = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")
COMMAND_LINE = "command line:"  # the origin git gives the NO_HOOKS settings
_REPO_LOCKS: dict[str, threading.Lock] = {}
_REPO_LOCKS_GUARD = threading.Lock()


class GitFailed(AidlcError):
    """git itself failed where the pipeline did not expect it to (exit 3)."""


@dataclass(frozen=True)
class Git:
    """git run in one directory (the main workspace or a unit's worktree)."""

    cwd: Path
    _identity: list[tuple[str, ...]] = field(default_factory=list, compare=False, repr=False)
    _common_dir: list[Path] = field(default_factory=list, compare=False, repr=False)

    def run(self, *args: str, env: dict[str, str] | None = None) -> str:
        return self.run_bytes(*args, env=env).decode("utf-8", "replace")

    def run_bytes(self, *args: str, env: dict[str, str] | None = None) -> bytes:
        code, out, err = self.attempt(*args, env=env)
        if code != 0:
            detail = (err or out).decode("utf-8", "replace").strip()
            raise GitFailed(f"git {' '.join(args)} (in {self.cwd}) failed: {detail}")
        return out

    def attempt(self, *args: str, env: dict[str, str] | None = None) -> tuple[int, bytes, bytes]:
        """Run git and return (exit code, stdout, stderr) without judging the outcome."""
        full_env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", **(env or {})}
        proc = subprocess.run(
            ["git", *NO_HOOKS, *args], cwd=self.cwd, env=full_env, capture_output=True, check=False
        )
        return proc.returncode, proc.stdout, proc.stderr

    def succeeds(self, *args: str) -> bool:
        return self.attempt(*args)[0] == 0

    def identity(self) -> tuple[str, ...]:
        if not self._identity:
            self._identity.append(
                () if self.succeeds("var", "GIT_COMMITTER_IDENT") else FALLBACK_IDENTITY
            )
        return self._identity[0]

    @property
    def lock(self) -> threading.Lock:
        key = str(self.common_dir())
        with _REPO_LOCKS_GUARD:
            return _REPO_LOCKS.setdefault(key, threading.Lock())

    # -- reading -------------------------------------------------------------------

    def common_dir(self) -> Path:
        """The repository's shared git dir (the same for every worktree), asked once: the
        repository lock below is keyed by it and taken around every write."""
        if not self._common_dir:
            asked = self.run("rev-parse", "--path-format=absolute", "--git-common-dir")
            self._common_dir.append(Path(asked.strip()))
        return self._common_dir[0]

    def rev_parse(self, ref: str) -> str:
        if not self.succeeds("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"):
            raise InvalidInput(f"{self.cwd}: unknown revision {ref!r}")
        return self.run("rev-parse", "--verify", f"{ref}^{{commit}}").strip()

    def current_branch(self) -> str | None:
        code, out, _ = self.attempt("symbolic-ref", "--quiet", "--short", "HEAD")
        return out.decode().strip() or None if code == 0 else None

    def branch_exists(self, branch: str) -> bool:
        return self.succeeds("show-ref", "--verify", "--quiet", f"refs/heads/{branch}")

    def tracked_changes(self) -> list[str]:
        out = self.run("status", "--porcelain", "--untracked-files=no", "-z")
        return sorted(entry[3:] for entry in out.split("\0") if entry)

    def uncommitted_paths(self) -> list[str]:
        """Every path of this worktree that differs from its HEAD: staged, unstaged and
        untracked (ignored files aside), relative to the top of the worktree."""
        out = self.run("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
        return sorted(entry[3:] for entry in out.split("\0") if entry)

    def changed_paths(self, old: str, new: str) -> list[str]:
        """Paths that differ between two trees/commits (renames as delete + add)."""
        out = self.run("diff-tree", "-r", "--no-renames", "--name-only", "-z", old, new, "--")
        return sorted(p for p in out.split("\0") if p)

    def blob(self, tree: str, path: str) -> bytes | None:
        code, out, _ = self.attempt("cat-file", "blob", f"{tree}:{path}")
        return out if code == 0 else None

    def files_under(self, tree: str, paths: list[str]) -> list[str]:
        if not paths:
            return []
        out = self.run("ls-tree", "-r", "--name-only", "-z", tree, "--", *paths)
        return sorted(p for p in out.split("\0") if p)

    def modes(self, tree: str, paths: list[str]) -> dict[str, str]:
        """The git file mode (``100644``, ``100755``, ``120000``...) of each path in ``tree``
        (paths absent there are left out)."""
        if not paths:
            return {}
        out = self.run("ls-tree", "-z", tree, "--", *paths, env={"GIT_LITERAL_PATHSPECS": "1"})
        entries = (e.split("\t", 1) for e in out.split("\0") if e)
        return {path: meta.split(" ", 1)[0] for meta, path in entries}

    def entries(self, tree: str, paths: list[str]) -> dict[str, str]:
        """``mode type object`` of each path in ``tree`` (paths absent there left out)."""
        if not paths:
            return {}
        out = self.run("ls-tree", "-z", tree, "--", *paths, env={"GIT_LITERAL_PATHSPECS": "1"})
        pairs = (e.split("\t", 1) for e in out.split("\0") if e)
        return {path: meta for meta, path in pairs}

    def branch_head(self, branch: str) -> str | None:
        """The commit ``branch`` points at, or None when it does not exist (or is no commit)."""
        code, out, _ = self.attempt(
            "rev-parse", "--verify", "--quiet", f"refs/heads/{branch}^{{commit}}"
        )
        return out.decode().strip() if code == 0 else None

    def is_ancestor(self, old: str, new: str) -> bool:
        return self.succeeds("merge-base", "--is-ancestor", old, new)

    def rev_list(self, old: str, new: str) -> list[str]:
        """Commits reachable from ``new`` and not from ``old``, newest first."""
        return self.run("rev-list", f"{old}..{new}", "--").split()

    def parents(self, commit: str) -> list[str]:
        return self.run("rev-list", "--parents", "-n", "1", commit, "--").split()[1:]

    def checked_out_at(self, branch: str) -> Path | None:
        """The worktree that has ``branch`` checked out, if one does."""
        out = self.run("worktree", "list", "--porcelain", "-z")
        for block in out.split("\0\0"):
            fields = dict(f.split(" ", 1) for f in block.split("\0") if " " in f)
            if fields.get("branch") == f"refs/heads/{branch}" and "worktree" in fields:
                return Path(fields["worktree"])
        return None

    def config_entries(self, pattern: str) -> list[str]:
        """Config entries whose key matches ``pattern``, ``key=value (origin)`` each, from
        every scope git reads here (includes followed) except Bolt's own ``NO_HOOKS``."""
        code, out, _ = self.attempt("config", "-z", "--show-origin", "--get-regexp", pattern)
        if code != 0:  # 1: nothing matches
            return []
        fields = out.decode("utf-8", "replace").split("\0")
        found = []
        for origin, entry in zip(fields[0::2], fields[1::2], strict=False):
            key, _, value = entry.partition("\n")
            if origin != COMMAND_LINE:
                found.append(f"{key}={value} ({origin})")
        return sorted(found)

    def commits_with_trailer(self, ref: str, needle: str) -> list[tuple[str, str]]:
        out = self.run(
            "log", "--fixed-strings", f"--grep={needle}", "--format=%H%x1f%B%x1e", ref, "--"
        )
        return [tuple(e.strip().split("\x1f", 1)) for e in out.split("\x1e") if e.strip()]  # type: ignore[misc]

    def count_trailer_commits(self, ref: str, trailers: dict[str, str]) -> list[str]:
        """Commits on ``ref`` whose message carries exactly these trailer values."""
        first = next(iter(trailers.items()))
        found = []
        for sha, body in self.commits_with_trailer(ref, f"{first[0]}: {first[1]}"):
            lines = {line.strip() for line in body.splitlines()}
            if all(f"{k}: {v}" in lines for k, v in trailers.items()):
                found.append(sha)
        return found

    # -- writing -------------------------------------------------------------------

    def add_worktree(self, path: Path, branch: str, base: str) -> None:
        with self.lock:
            if self.branch_exists(branch):
                self.run("worktree", "add", "--quiet", "--", str(path), branch)
            else:
                self.run("worktree", "add", "--quiet", "-b", branch, "--", str(path), base)

    def remove_worktree(self, path: Path, branch: str | None = None) -> None:
        with self.lock:
            if path.exists():
                self.attempt("worktree", "remove", "--force", "--force", "--", str(path))
            forget_workspace(path)  # a worktree made again here starts with no seals of ours
            self.run("worktree", "prune")
            if branch and self.branch_exists(branch):
                self.run("branch", "-D", "--", branch)

    def snapshot_tree(self, excludes: list[str]) -> str:
        """The tree of the working directory as it is now (HEAD + every change, untracked
        included, ignored files not), written without touching this worktree's index."""
        with tempfile.TemporaryDirectory(prefix="aidlc-bolt-index-") as tmp:
            env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
            self.run("read-tree", "HEAD", env=env)
            specs = [".", *excludes]
            self.run("add", "--all", "--", *specs, env=env)
            return self.run("write-tree", env=env).strip()

    def commit_tree(self, tree: str, parent: str, message: str) -> str:
        return self.run(*self.identity(), "commit-tree", tree, "-p", parent, "-m", message).strip()

    def move_branch(self, branch: str, new: str, old: str) -> None:
        """Move ``branch`` to ``new`` only if it is still at ``old``; sync this worktree's index."""
        with self.lock:
            self.run("update-ref", f"refs/heads/{branch}", new, old)
        self.run("reset", "--quiet", "--mixed", "HEAD")

    def squash_merge(self, parent: str, commit: str, message: str) -> str:
        """Commit onto the checked-out branch exactly ``commit``'s version of every path that
        differs between ``parent`` and ``commit`` (a squash: no link to the unit branch).

        No 3-way merge and no rename detection: the bytes that land are the reviewed bytes.
        The caller has checked that the branch still has ``parent``'s version of those paths,
        so nothing of the branch's own is overwritten."""
        paths = self.changed_paths(parent, commit)
        present = sorted(self.modes(commit, paths))
        deleted = sorted(set(paths) - set(present))
        literal = {"GIT_LITERAL_PATHSPECS": "1"}
        if present:
            self.run("checkout", "--quiet", commit, "--", *present, env=literal)
        if deleted:
            self.run("rm", "--quiet", "--ignore-unmatch", "--", *deleted, env=literal)
        self.run(
            *self.identity(), "commit", "--quiet", "--allow-empty", "--no-verify", "-m", message
        )
        return self.rev_parse("HEAD")
