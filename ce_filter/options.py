"""Options shared by every ce-filter command, defined and checked here once.

- The extraction options (``--model``, ``--precise``, ``--threshold``, ``--comments``,
  ``--bylines``, ``--target-language``) of
  ``extract``, ``evaluate``, ``warc``, ``worker``, ``crawl`` and the Spark job, the Scrapy
  settings of the same names (``CE_FILTER_MODEL``, ...) and :class:`ExtractOptions`, which
  makes the Extractor from them.
- ``env_opt``: any option's default comes from ``CE_FILTER_<OPTION>``; a flag wins.
- The checks (argparse types) that turn an ordinary mistake into one line and exit 2: a
  threshold outside [0, 1] or not finite, an unknown or non-text ``--encoding``, a model file
  that is missing or not a model, a count below 1, an output file that cannot be written.
- ``Parser``: help with defaults, and a usage error as one line.

Nothing heavy is imported at module level: ``ce-filter --help`` stays cheap.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import IO, TYPE_CHECKING, Any, Literal, NoReturn, Protocol, TypedDict, TypeVar, cast, get_args

# the value checks live in values.py (the API uses them too); options re-exports them
from .values import (  # noqa: F401
    UsageError,
    language_code,
    model_file,
    non_negative_int,
    non_negative_number,
    positive_int,
    positive_number,
    probability,
    text_codec,
    writable_file,
)
from .values import loaded_models as _models

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .api import Extractor
    from .score.blockmodel import Model
    from .score.site.memory import Memory, SiteCounts

T = TypeVar("T")

ENV_PREFIX = "CE_FILTER_"
# Kafka's connection options, here so that the crawler's settings and every stage read one list.
# (kafka-python option, help). Each is a CLI flag --opt-name, an env var CE_FILTER_OPT_NAME and
# a Scrapy setting CE_FILTER_OPT_NAME.
CONNECTION_OPTIONS: tuple[tuple[str, str], ...] = (
    ("bootstrap_servers", "Kafka brokers, host:port[,host:port...]"),
    ("security_protocol", "PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"),
    ("sasl_mechanism", "PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER or GSSAPI"),
    ("sasl_plain_username", "SASL username"),
    ("sasl_plain_password", "SASL password (prefer the environment variable)"),
    ("ssl_cafile", "CA certificate file (PEM)"),
    ("ssl_certfile", "client certificate file (PEM)"),
    ("ssl_keyfile", "client private key file (PEM)"),
    ("ssl_password", "password of the client private key"),
    ("client_id", "client id sent to the broker"),
)
EXIT_USAGE = 2




def open_output(path: str | None) -> IO[str] | None:
    """Open an output file now (a mistake shows before the run), or None for no path."""
    if not path:
        return None
    try:
        return open(writable_file(path), "w", encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {path}: {e.strerror or e}") from None
    except ValueError as e:
        raise UsageError(f"cannot write {path}: {e}") from None


# ------------------------------------------------------------------ environment


def env_bool(v: str) -> bool:
    return v.strip().lower() not in ("", "0", "false", "no", "off")


class _FromEnv(str):
    """A default taken from the environment (so a bad value names its variable)."""

    env = ""


def arg_type(type: Callable[[str], T]) -> Callable[[str], T]:
    """``type`` as argparse calls it, also on a string default: a value that does not convert
    is a one-line usage error (exit 2) with the check's own words, naming the variable when
    the value came from one."""

    def convert(value: str) -> T:
        try:
            return type(value)
        except (TypeError, ValueError) as e:
            name = getattr(type, "__name__", repr(type))
            where = f" (from {value.env})" if isinstance(value, _FromEnv) else ""
            why = f"invalid {name} value: {str(value)!r}" if type in (int, float) else str(e)
            raise argparse.ArgumentTypeError(f"{why}{where}") from None

    convert.__name__ = getattr(type, "__name__", "value")
    return convert


def env_name(dest: str) -> str:
    return ENV_PREFIX + dest.upper()


class ArgOptions(TypedDict, total=False):
    """What a caller may give ``env_opt`` besides its own arguments: ``add_argument``'s, passed on
    (``dest`` also names the environment variable)."""

    action: str
    choices: Iterable[object]
    dest: str


class _Argument(TypedDict, total=False):
    """What ``add_argument`` gets as it is: ArgOptions without ``dest`` (env_opt took it), and
    env_opt's ``type`` through ``arg_type``."""

    action: str
    choices: Iterable[object]
    type: Callable[[str], object]


def env_opt(p: argparse._ActionsContainer, flag: str, *, type: Callable[[str], object] = str,
            default: object = None, help: str = "", **kw: Unpack[ArgOptions]) -> None:
    """An option whose default comes from ``CE_FILTER_<DEST>`` when that is set. The
    variable's value is converted at parse time (argparse converts string defaults of options
    not given on the command line), so a flag wins even over a bad value."""
    dest = kw.pop("dest", flag.lstrip("-").replace("-", "_"))
    env = env_name(dest)
    raw = os.environ.get(env)
    if kw.get("action") == "store_true":
        default = env_bool(raw) if raw is not None else bool(default)
    elif kw.get("action") == "append":
        default = raw.split(",") if raw not in (None, "") else default
    else:
        cast("_Argument", kw)["type"] = arg_type(type)
        if raw not in (None, ""):
            default = _FromEnv(raw)
            default.env = env
    p.add_argument(flag, dest=dest, default=default, help=f"{help} [env {env}]".strip(),
                   **cast("_Argument", kw))


# ------------------------------------------------------------------ the extraction options

# A check of an extraction option's value: argparse gives it the flag's string, from_settings
# the setting's value as it is (a ValueError says what is wrong with it).
Check = Callable[[Any], object]  # Any: a flag's string, or a Scrapy setting's value of any type
# (option, check or "flag", help): the one definition behind the flags, their
# CE_FILTER_* variables, the Scrapy settings and the Spark job's options.
EXTRACTION_OPTIONS: tuple[tuple[str, Check | Literal["flag"], str], ...] = (
    ("model", model_file, "model JSON file, e.g. made by `ce-filter train` (default: the shipped model)"),
    ("precise", "flag", "precision-leaning cut chosen on CV (for indexers)"),
    ("recall", "flag", "recall-leaning cut chosen on CV (keeps more; not with --precise, but "
                       "evaluate --cv scores both)"),
    ("threshold", probability, "block probability cut in [0, 1] (higher = more precise; "
                               "default: the model's)"),
    ("comments", "flag", "keep user comments (the article+comments model)"),
    ("bylines", "flag", "keep an article's bylines, datelines and photo credits in its text (by "
                        "default they are left to the record's author and date)"),
    ("target_language", language_code, "ISO 639-1 code, e.g. en: a page whose text is identified "
                                       "as another language gives no text, its reason naming the "
                                       "language found (a page whose language is unknown is kept)"),
)


def flag(name: str) -> str:
    """The command-line flag of an extraction option (``target_language`` -> ``--target-language``)."""
    return "--" + name.replace("_", "-")


def add_extraction_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("extraction")
    for name, typ, text in EXTRACTION_OPTIONS:
        if typ == "flag":
            env_opt(g, flag(name), action="store_true", help=text)
        else:
            env_opt(g, flag(name), type=typ, help=text)


def add_budget_options(p: argparse.ArgumentParser) -> None:
    """The per-page budget (ce_filter.run.budget): past it a page gets an empty result whose reason
    says so, and the run goes on."""
    env_opt(p, "--page-budget", type=non_negative_number, default=10.0,
            help="CPU seconds one page may take (0 = no limit)")
    env_opt(p, "--page-memory", type=non_negative_int, default=1024,
            help="MiB of memory one page may take beyond the filter's own (0 = no limit)")


# The site memory's policy (ce_filter.score.site.memory): off, each page alone; stream, the pages this
# process has seen (SiteMemory: worker, crawl, the datatrove step); two-pass, order-free counts
# of a first pass over the whole input (SiteCounts: ce-filter warc, the Spark job)
SitePolicy = Literal["off", "stream", "two-pass"]
SITE_POLICIES: tuple[str, ...] = get_args(SitePolicy)


class Settings(Protocol):
    """Where ``ExtractOptions.from_settings`` reads: Scrapy settings, ``os.environ``, a dict."""

    def get(self, name: str, /) -> object: ...


class ExtractorOptions(TypedDict, total=False):
    """``ExtractOptions.extractor_options``: the Extractor's keyword arguments besides the model."""

    comments: bool
    threshold: float | None
    precise: bool
    recall: bool
    target_language: str | None
    bylines: bool
    site_memory: Memory | None


@dataclass(frozen=True)
class ExtractOptions:
    """How to filter: which model, which cut, which language. Picklable (sent to worker
    processes)."""

    model: str | None = None
    precise: bool = False
    threshold: float | None = None
    comments: bool = False
    recall: bool = False
    target_language: str | None = None
    bylines: bool = False
    # the site memory (ce_filter.score.site.memory): True for a stream's (the pages this process has
    # seen), a SiteCounts for a WARC run's order-free counts, None: each page alone
    site_memory: SitePolicy = "off"
    # the two-pass policy's first-pass counts (and only its: set them with ``with_counts``)
    site_counts: SiteCounts | None = None

    def __post_init__(self) -> None:
        if self.site_memory not in SITE_POLICIES:
            raise UsageError(f"site memory: {self.site_memory!r} is not one of {', '.join(SITE_POLICIES)}")
        if (self.site_counts is not None) != (self.site_memory == "two-pass"):
            raise UsageError("site memory: the counts go with the two-pass policy, and it with them")
        if self.precise and self.recall:
            raise UsageError("--precise and --recall exclude each other: choose one")
        if self.threshold is not None:
            object.__setattr__(self, "threshold", probability(self.threshold))
        if self.target_language is not None:
            object.__setattr__(self, "target_language", language_code(self.target_language))

    @classmethod
    def from_args(cls, a: argparse.Namespace) -> ExtractOptions:
        return cls(a.model or None, bool(a.precise), a.threshold, bool(a.comments),
                   bool(getattr(a, "recall", False)), getattr(a, "target_language", None) or None,
                   bool(getattr(a, "bylines", False)))

    @classmethod
    def from_settings(cls, s: Settings, prefix: str = ENV_PREFIX) -> ExtractOptions:
        """From Scrapy settings or ``os.environ`` (``CE_FILTER_MODEL``, ...); a bad value is a
        UsageError naming the setting."""
        kw: dict[str, Any] = {}  # Any: each option's checked value by its field's name (cls(**kw))
        for name, typ, _ in EXTRACTION_OPTIONS:
            raw = s.get(prefix + name.upper())
            if raw in (None, ""):
                continue
            if typ == "flag":
                kw[name] = raw if isinstance(raw, bool) else env_bool(str(raw))
                continue
            try:
                kw[name] = typ(raw)
            except ValueError as e:
                raise UsageError(f"{prefix}{name.upper()}: {e}") from None
        return cls(**kw)

    def settings(self, prefix: str = ENV_PREFIX) -> dict[str, object]:
        """As Scrapy settings (what ``from_settings`` reads)."""
        return {prefix + name.upper(): getattr(self, name) for name, _, _ in EXTRACTION_OPTIONS}

    def with_counts(self, counts: SiteCounts) -> ExtractOptions:
        """These options with the two-pass site memory reading ``counts`` (the first pass's)."""
        return replace(self, site_memory="two-pass", site_counts=counts)

    def alone(self) -> ExtractOptions:
        """These options without a site memory: each page alone (the first pass's reader)."""
        return replace(self, site_memory="off", site_counts=None)

    def site_source(self) -> Memory | None:
        """The site memory the policy gives an Extractor: none (off), a new stream memory
        (stream: the pages this process sees), or the counts (two-pass)."""
        if self.site_memory == "stream":
            from .score.site.memory import SiteMemory

            return SiteMemory()
        return self.site_counts

    def extractor(self) -> Extractor:
        """The Extractor these options describe (a model file is loaded once per process)."""
        from .api import Extractor

        model: Model | None = None
        if self.model is not None:
            model_file(self.model)
            model = _models[self.model]
        return Extractor(model, **self.extractor_options())

    def extractor_options(self) -> ExtractorOptions:
        """The Extractor's keyword options besides the model (for a caller that loads the model
        its own way, as the Spark job does)."""
        kw: ExtractorOptions = {"comments": self.comments, "threshold": self.threshold,
                                "precise": self.precise, "recall": self.recall,
                                "target_language": self.target_language}
        if self.bylines:
            kw["bylines"] = True
        if self.site_memory != "off":
            kw["site_memory"] = self.site_source()
        return kw


# ------------------------------------------------------------------ the parser


class HelpFormatter(argparse.HelpFormatter):
    """Every option's help line ends with its default, where it has one worth showing."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        d = action.default
        if "default" in text or d in (None, False, [], argparse.SUPPRESS) or not action.option_strings:
            return text  # (a help line that already says its default keeps its own words)
        shown = ",".join(map(str, d)) if isinstance(d, list) else d
        note = f" (default: {str(shown).replace('%', '%%')})"
        head, sep, env = text.rpartition(" [env ")
        return f"{head}{note}{sep}{env}" if sep else text + note


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose help shows defaults and whose usage errors are one line."""

    def __init__(self, *args: Any, **kw: Any) -> None:  # Any: ArgumentParser's own arguments
        kw.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kw)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def fail(message: str, prog: str = "ce-filter") -> int:
    """Print one error line; the usage exit code."""
    print(f"{prog}: error: {message}", file=sys.stderr)
    return EXIT_USAGE
