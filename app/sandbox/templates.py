"""Chat templates rendered in the sandbox child (app/sandbox/child.py hands it the requests).

A Hugging Face chat template is Jinja source from a user: it can loop for ever, emit
gigabytes or raise. `render(source, context, limit_chars, budget_s)` renders it the way
`transformers`' `apply_chat_template` does: Jinja's `ImmutableSandboxedEnvironment` with
`trim_blocks` and `lstrip_blocks`, the `loopcontrols` extension, the globals
`raise_exception`, `strftime_now`, a `dict` constructor and `namespace`, and a `tojson`
filter that is `json.dumps` with `ensure_ascii=False` (HTML characters not escaped; its
`indent`, `separators` and `sort_keys` options kept). `check(source)` only parses it.

Answers are tuples as child.py's: ("ok", text), ("invalid", "line N: why") when it does not
parse, ("raised", message) for the template's own `raise_exception`, ("error", why) for
other template errors (undefined operations, sandbox refusals), ("large", why) past
`limit_chars` of output, ("slow", why) past `budget_s` between two pieces of output,
("memory", why) past TEMPLATE_BYTES. A loop that emits nothing is stopped by the caller's
wall clock (the runner kills the child). Compiled templates are kept (KEPT_TEMPLATES).
The context (messages, tools, tokens) is plain JSON-like data made by app/chat/formats/template_format.py.
Left out: the `{% generation %}` tag (assistant masks).
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from datetime import datetime

from app.sandbox.limits import memory_bound

TEMPLATE_BYTES = 256 << 20
KEPT_TEMPLATES = 8
_compiled: OrderedDict[str, object] = OrderedDict()
_environment = None


def _tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _make_environment():
    import jinja2.ext
    import jinja2.utils
    from jinja2.exceptions import SecurityError, TemplateError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class Raised(TemplateError):
        pass

    def raise_exception(message):
        raise Raised(str(message))

    class Namespace(jinja2.utils.Namespace):
        # no underscore attributes: a namespace must not reach CPython internals
        def __init__(*args, **kwargs):
            self, attributes = args[0], dict(*args[1:], **kwargs)
            for name in attributes:
                Namespace._allowed(name)
            jinja2.utils.Namespace.__init__(self, attributes)

        def __setitem__(self, name, value):
            Namespace._allowed(name)
            jinja2.utils.Namespace.__setitem__(self, name, value)

        @staticmethod
        def _allowed(name):
            if isinstance(name, str) and name.startswith("_"):
                raise SecurityError(f"a namespace cannot hold the attribute {name!r} (it starts with an underscore)")

    class DictMaker:
        def __call__(self, *args, **kwargs):
            return dict(*args, **kwargs)

        def fromkeys(self, *args, **kwargs):
            return dict.fromkeys(*args, **kwargs)

    class Environment(ImmutableSandboxedEnvironment):
        raised = Raised  # what raise_exception raises, for render to catch

    environment = Environment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    environment.filters["tojson"] = _tojson
    environment.globals.update(
        raise_exception=raise_exception,
        namespace=Namespace,
        dict=DictMaker(),
        strftime_now=lambda format: datetime.now().strftime(format),
    )
    return environment


def _compile(source: str):
    """The compiled template, or an answer tuple saying why not."""
    global _environment
    from jinja2.exceptions import TemplateSyntaxError

    if source in _compiled:
        _compiled.move_to_end(source)
        return _compiled[source]
    if _environment is None:
        _environment = _make_environment()
    try:
        with memory_bound(TEMPLATE_BYTES):
            template = _environment.from_string(source)
    except TemplateSyntaxError as error:
        return ("invalid", f"line {error.lineno}: {error.message}")
    except MemoryError:
        return ("memory", f"parsing it needs over {TEMPLATE_BYTES >> 20} MB")
    except RecursionError:
        return ("invalid", "it is nested too deeply to parse")
    _compiled[source] = template
    while len(_compiled) > KEPT_TEMPLATES:
        _compiled.popitem(last=False)
    return template


def check(source: str) -> tuple:
    compiled = _compile(source)
    return compiled if isinstance(compiled, tuple) else ("ok", None)


def render(source: str, context: dict, limit_chars: int, budget_s: float) -> tuple:
    from jinja2.exceptions import TemplateError

    template = _compile(source)
    if isinstance(template, tuple):
        return template
    assert _environment is not None  # _compile made it
    pieces, size = [], 0
    deadline = time.monotonic() + budget_s
    try:
        with memory_bound(TEMPLATE_BYTES):
            for piece in template.generate(**context):
                size += len(piece)
                if size > limit_chars:
                    return ("large", f"it renders more than {limit_chars:,} characters")
                if time.monotonic() > deadline:
                    return ("slow", f"it rendered for more than {budget_s:g} s")
                pieces.append(piece)
            return ("ok", "".join(pieces))
    except _environment.raised as error:
        return ("raised", error.message or "")
    except TemplateError as error:
        return ("error", f"{type(error).__name__}: {error.message or error}")
    except MemoryError:
        return ("memory", f"rendering it needs over {TEMPLATE_BYTES >> 20} MB")
    except RecursionError:
        return ("error", "it recurses too deeply")
    except Exception as error:  # a template can make Python raise anything: it is the template's fault
        return ("error", f"{type(error).__name__}: {error}")
