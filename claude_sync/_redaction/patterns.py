"""The names that say "secret", and the pattern pass: secrets found by their shape (pure).

Used where no value can be known (``redactor.redact_text``: the CLI's stderr, its error
lines, a failing callback's exception), and to *find* secrets in config text the user gave
(``secrets``: a shell command in MCP ``args``, a header line …) so that they are then
removed by value everywhere.

What the pass replaces (each value by ``<redacted>``, the name or scheme kept):

- well-known key shapes (Anthropic ``sk-ant-…``, OpenAI, Stripe, GitHub, GitLab, Slack, AWS,
  Google, Hugging Face, npm, PyPI, SendGrid, Shopify, DigitalOcean, Grafana, JWTs) and PEM
  private key bodies: the whole key;
- ``Authorization:`` / ``Proxy-Authorization:`` header values whatever the scheme (``Bearer``,
  ``Token``, ``Digest …``, ``Basic``): the rest of the header; ``Bearer``/``Token``/``Bot``
  followed by a token-like word (8+ characters with a digit or punctuation: not
  "Bearer of bad news"), ``Basic`` followed by base64;
- URL userinfo (``https://user:PASS@h``; a lone ``https://TOKEN@h`` when it looks like a
  token: 12+ characters with a digit, or 24+) and secret query parameters (``?key=``,
  ``?sig=``, ``?token=`` …);
- environment assignments, ``PGPASSWORD=…``, ``export DB_PASS=…``, ``env GH_TOKEN=… cmd``
  (an upper-case name naming a secret, ``=`` right after it): the value up to the next
  white space, whatever punctuation it holds (``env`` prints values raw: a password may hold
  ``;``, ``&``, ``)``), or the whole quoted string; kept only when the value is exactly a
  reference (``$VAR``, ``${VAR}``, ``$(…)``, ``<…>``) or a literal;
- ``name=value``, ``name: value``, ``"name": "value"``, ``name="value"`` and ``--flag value``
  / ``--flag=value`` where the name names a secret (``is_secret_name``, ``is_secret_flag``),
  unless the value is a literal (``None``, ``true``, ``null`` …), a reference (``$VAR``,
  ``${VAR}``, ``<…>``) or a short number; a bare value stops at a separator or closing
  bracket, so ``connect(api_key=None).`` keeps its bracket and full stop. The value of a name
  that is not a secret's is searched too (``Error: PGPASSWORD=…``, ``args=--token=…``).

The table in ``tests/redaction/test_redaction.py`` holds the shapes it must catch and the
look-alikes it must leave alone. Patterns compiled on first use.
"""

from __future__ import annotations

import re
from typing import List, Optional

__all__ = ["REDACTED", "SECRET_QUERY_NAMES", "is_secret_flag", "is_secret_name", "redact_patterns", "redact_urls"]

REDACTED = "<redacted>"
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")

_SECRET_WORDS = frozenset((
    "token", "secret", "secrets", "password", "passwd", "passphrase", "credential", "credentials",
    "cookie", "cookies", "authorization", "auth", "oauth", "bearer", "signature", "apikey", "privatekey",
    "pgpassword",
))  # fmt: skip
_KEY_QUALIFIERS = frozenset(("api", "private", "access", "secret", "signing", "encryption", "client", "master"))
"""Words that make a following ``key`` a secret (``api_key``, ``private-key`` …)."""
_KIND_WORDS = frozenset((
    "source", "type", "kind", "count", "counts", "length", "limit", "budget", "usage", "expires", "expiry", "at",
    "url", "uri", "endpoint", "path", "file", "name", "id", "env", "var", "required", "enabled", "status",
    "mode", "method", "scheme", "header", "provider", "format",
))  # fmt: skip
"""A last word that says what kind of thing a name is about (``apiKeySource``), not a secret."""
_SECRET_FLAG_NAMES = frozenset(("key", "auth-header", "authheader", "pass", "pw", "header"))
"""Flags whose value is a secret, or a header line that may be one, beyond ``is_secret_name``."""
SECRET_QUERY_NAMES = frozenset(("key", "sig", "code", "pass", "pw", "apikey", "auth"))
_LITERALS = frozenset((
    "none", "null", "nil", "true", "false", "yes", "no", "on", "off", "enabled", "disabled", "required",
    "optional", "undefined", "unset", "empty", "missing", "redacted", "hidden", "n/a", "***", "...", "xxx",
))  # fmt: skip
"""Values of a secret-named field that are not secrets (``api_key=None``, ``auth: true``)."""

_NAME = r"[A-Za-z_][A-Za-z0-9_.\-]*"
_VALUE = r"(\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|[^\s\"'&,;)\]}>]+)"
"""A double- or single-quoted string, or a bare word up to a separator or closing bracket."""
_ENV_VALUE = r"(\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|(?:\$\([^()\n]*\)|<[^<>\n]*>)(?=[\s`'\".,;:)\]}]|$)|[^\s\"']\S*)"
"""An environment variable's value: a quoted string, a whole ``$(…)`` or ``<…>``, or everything
up to white space."""
_REFERENCE = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*|\$\{[^{}\s]+\}|\$\([^()]*\)|<[^<>]*>|%[A-Za-z_][A-Za-z0-9_]*%")
"""A whole value that only names where the secret is (``$PGPASSWORD``, ``${TOKEN}``, ``<yours>``)."""


class _Patterns:
    """The regular expressions of the pattern pass, compiled on first use."""

    def __init__(self) -> None:
        self.token_shapes = re.compile(
            r"\b(?:sk-ant-[\w\-]{4,}|sk-(?:proj-|svcacct-|None-)?[\w\-]{20,}|sk_(?:live|test)_\w{16,}"
            r"|rk_(?:live|test)_\w{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|glpat-[\w\-]{20,}"
            r"|xox[abprse]-[A-Za-z0-9\-]{10,}|xapp-[\w\-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}\b|AIza[\w\-]{35}"
            r"|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}|pypi-[\w\-]{50,}|SG\.[\w\-]{16,}\.[\w\-]{16,}"
            r"|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}|dop_v1_[a-f0-9]{64}|glc_[A-Za-z0-9+/=]{32,}"
            r"|eyJ[\w\-]{8,}\.eyJ[\w\-]{8,}\.[\w\-]+)"
        )
        self.private_key = re.compile(r"(-----BEGIN [A-Z ]*PRIVATE KEY-----).*?(-----END [A-Z ]*PRIVATE KEY-----|$)", re.S)
        self.auth_header = re.compile(
            r"(?i)\b((?:proxy-)?authorization\\?\"?\s*[:=]\s*)(?:(\\?[\"'])((?:[a-z][\w\-]*\s+(?=\S))?)([^\"'\r\n\\]+)"
            r"|((?:[a-z][\w\-]*[ \t]+(?=\S))?)([^\r\n]+))"
        )
        self.auth_scheme = re.compile(
            r"\b((?i:bearer|token|bot))(\s+)(?!<redacted>)(?=[\w.~+/\-]*[0-9._~+/\-])[A-Za-z0-9._~+/\-]{8,}=*"
            r"|\b(Basic)(\s+)(?=[A-Za-z0-9+/]*[0-9+/=]|[A-Za-z][A-Za-z0-9+/]*[A-Z])[A-Za-z0-9+/]{8,}={0,2}"  # base64, not prose
        )
        self.url_password = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.\-]{0,31}://[^\s/:@\"']*:)[^\s/@\"']+(@)")
        self.url_token = re.compile(
            r"(\b[A-Za-z][A-Za-z0-9+.\-]{0,31}://)(?!<redacted>)((?=[^\s/:@\"']*\d)[^\s/:@\"']{12,}|[^\s/:@\"']{24,})(@)"
        )
        self.query = re.compile(r"([?&;](" + _NAME + r")=)([^&\s#\"'<>]+)")
        self.all_values_object = re.compile(r'"(?i:env|headers)"\s*:\s*\{[^{}]*\}')  # inside text that is not JSON
        self.json_string_value = re.compile(r'("(?:[^"\\]|\\.)*"\s*:\s*)"(?:[^"\\]|\\.)*"')
        self.env_assignment = re.compile(r"(?<![\w\-.$/])([A-Z][A-Z0-9_]*)(=)" + _ENV_VALUE)
        self.assignment = re.compile(r"(?<![\w\-])(" + _NAME + r")(\s*=\s*|\"?\s*:[ \t]*)" + _VALUE)
        self.flag_value = re.compile(r"(?<![\w\-])(--?" + _NAME + r")(=|[ \t]+)(?!-)" + _VALUE)


_compiled: List[_Patterns] = []


def _patterns() -> _Patterns:
    if not _compiled:
        _compiled.append(_Patterns())
    return _compiled[0]


def is_secret_name(name: str) -> bool:
    """Whether a key, header, variable or flag named ``name`` holds a secret."""
    words = [w.lower() for w in _WORDS.findall(name)]
    if not words or words[-1] in _KIND_WORDS:
        return False
    for index, word in enumerate(words):
        if word in _SECRET_WORDS:
            return True
        if word == "key" and index > 0 and words[index - 1] in _KEY_QUALIFIERS:
            return True
        if word.endswith(("apikey", "token", "password", "secret")):  # ANTHROPICAPIKEY, GHTOKEN, PGPASSWORD
            return True
        if word == "pwd" and len(words) > 1:  # MYSQL_PWD, not the working directory's PWD
            return True
        if word == "pass" and index == len(words) - 1 > 0 and name.isupper():  # DB_PASS, not first_pass
            return True
    return False


def is_secret_flag(flag: str) -> bool:
    """Whether the argument after the command-line flag ``flag`` (``--token``, ``--key``,
    ``--auth-header``, ``-H``) is, or may carry, a secret."""
    name = flag.lstrip("-")
    if not flag.startswith("-") or not name:
        return False
    return is_secret_name(name) or name.lower() in _SECRET_FLAG_NAMES or flag == "-H"


def redact_patterns(text: str, found: Optional[List[str]] = None) -> str:
    """``text`` with the secrets the pattern pass finds replaced by ``REDACTED``; each value
    replaced is appended to ``found`` when given."""
    if not text:
        return text
    p = _patterns()
    keep = _Found(found)
    text = p.private_key.sub(lambda m: keep(m, 0, m.group(1), m.group(2)), text)
    text = p.token_shapes.sub(lambda m: keep(m, 0, "", "", whole=True), text)
    text = p.auth_header.sub(keep.auth_header, text)
    text = p.auth_scheme.sub(keep.auth_scheme, text)
    text = p.url_password.sub(keep.url, text)
    text = p.url_token.sub(keep.url, text)
    text = p.query.sub(keep.query, text)
    text = p.all_values_object.sub(lambda m: p.json_string_value.sub(keep.json_value, m.group(0)), text)
    text = p.env_assignment.sub(keep.env, text)
    text = p.assignment.sub(keep.named, text)
    return p.flag_value.sub(keep.flag, text)


def redact_urls(text: str) -> str:
    """``text`` with only the URL rules of the pass applied (userinfo, secret query
    parameters): for the URLs of config, whose other text is not guessed at."""
    if "://" not in text:
        return text
    p, keep = _patterns(), _Found(None)
    text = p.url_password.sub(keep.url, text)
    text = p.url_token.sub(keep.url, text)
    return p.query.sub(keep.query, text)


class _Found:
    """The replacement callbacks of one pass; records each value replaced in ``found``."""

    def __init__(self, found: Optional[List[str]]) -> None:
        self.found = found

    def __call__(self, match: re.Match[str], group: int, before: str, after: str, whole: bool = False) -> str:
        if self.found is not None:
            value = match.group(0) if whole else match.group(0)[len(before) : len(match.group(0)) - len(after)]
            self.found.append(value)
        return f"{before}{REDACTED}{after}"

    def _keep(self, value: str) -> None:
        if self.found is not None:
            self.found.append(value)

    def auth_header(self, match: re.Match[str]) -> str:
        quote, scheme, value = match.group(2) or "", match.group(3) or match.group(5) or "", match.group(4) or match.group(6)
        if value.startswith(REDACTED) or (not scheme and value.strip().rstrip(".,;").lower() in _LITERALS):
            return match.group(0)
        self._keep(value.strip())
        return f"{match.group(1)}{quote}{scheme}{REDACTED}"

    def auth_scheme(self, match: re.Match[str]) -> str:
        head = f"{match.group(1) or match.group(3)}{match.group(2) or match.group(4)}"
        self._keep(match.group(0)[len(head):])
        return f"{head}{REDACTED}"

    def url(self, match: re.Match[str]) -> str:
        self._keep(match.group(0)[len(match.group(1)) : -1])
        return f"{match.group(1)}{REDACTED}@"

    def query(self, match: re.Match[str]) -> str:
        name = match.group(2)
        if not (is_secret_name(name) or name.lower() in SECRET_QUERY_NAMES) or match.group(3) == REDACTED:
            return match.group(0)
        self._keep(match.group(3))
        return f"{match.group(1)}{REDACTED}"

    def json_value(self, match: re.Match[str]) -> str:
        value = match.group(0)[len(match.group(1)) + 1 : -1]
        if value == REDACTED:
            return match.group(0)
        self._keep(value)
        return f'{match.group(1)}"{REDACTED}"'

    def _hidden(self, value: str) -> Optional[str]:
        """The redacted form of a matched ``_VALUE``, or None to keep it (a literal, a
        reference, already redacted)."""
        quote = value[:1] if value[:1] in ("'", '"') else ""
        inner = value[1:-1] if quote and len(value) >= 2 and value[-1] == quote else value
        bare = inner.rstrip(".:")
        if not bare or bare.lower() in _LITERALS or bare.startswith(("$", "<", "%", "{", "(", "[")) or REDACTED in bare:
            return None
        if not quote and bare.isdigit() and len(bare) < 6:  # port numbers, counts
            return None
        self._keep(bare if not quote else inner)
        tail = inner[len(bare) :]
        return f"{quote}{REDACTED}{quote}" if quote else f"{REDACTED}{tail}"

    def env(self, match: re.Match[str]) -> str:
        value = match.group(3)
        quote = value[:1] if value[:1] in ("'", '"') and len(value) >= 2 and value[-1] == value[:1] else ""
        inner = value[1:-1] if quote else value
        if not is_secret_name(match.group(1)) or inner.startswith(REDACTED[:-1]) or _REFERENCE.fullmatch(inner) or inner.lower() in _LITERALS:
            return match.group(0)
        self._keep(inner)
        return f"{match.group(1)}={quote}{REDACTED}{quote}"

    def named(self, match: re.Match[str]) -> str:
        name = match.group(1).strip('"')
        if not is_secret_name(name):
            # Not a secret's name, but its value may hold one: "Error: PGPASSWORD=…".
            inner = redact_patterns(match.group(3), self.found) if any(c in match.group(3) for c in "=:-") else match.group(3)
            return f"{match.group(1)}{match.group(2)}{inner}"
        if match.string.startswith(" " + REDACTED, match.end()):
            return match.group(0)
        hidden = self._hidden(match.group(3))
        return match.group(0) if hidden is None else f"{match.group(1)}{match.group(2)}{hidden}"

    def flag(self, match: re.Match[str]) -> str:
        if not is_secret_flag(match.group(1)) or match.group(1) in ("-H", "--header"):
            return match.group(0)
        hidden = self._hidden(match.group(3))
        return match.group(0) if hidden is None else f"{match.group(1)}{match.group(2)}{hidden}"
