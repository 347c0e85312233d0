"""`tokenprism shares prune`: the operator's way to keep the share store small.

`prune --older-than DAYS` removes the shares created more than DAYS ago; `--max-bytes N` then
removes the oldest until the shares take at most N bytes (compressed, as
TOKENPRISM_MAX_SHARE_STORE_BYTES counts them). `--dry-run` lists what would go and removes
nothing. One SQLite transaction on `<data dir>/shares.sqlite3`, so it is safe while servers run
(their new shares wait for it). Links to removed shares answer 404 from then on. The file
itself does not shrink: SQLite reuses the freed pages for new shares. Left out: a schedule (run
it from cron or a timer), and pruning by when a share was last opened.
"""

from __future__ import annotations

from datetime import timedelta

from app.cli.io import CliError
from app.settings import get_settings
from app.shares.store import ShareStore


def cmd_prune(args) -> None:
    if args.older_than is None and args.max_bytes is None:
        raise CliError("say what to remove: --older-than DAYS, --max-bytes N, or both (add --dry-run to see first)")
    if args.older_than is not None and not 0 <= args.older_than <= 1_000_000:
        raise CliError(f"--older-than {args.older_than:g} is out of range; give a number of days, 0 or more")
    if args.max_bytes is not None and args.max_bytes < 0:
        raise CliError(f"--max-bytes {args.max_bytes} is negative; give a number of bytes, 0 or more")
    settings = get_settings()
    store = ShareStore(settings.share_store_path, settings.max_share_bytes, settings.max_share_store_bytes)
    older_than = timedelta(days=args.older_than) if args.older_than is not None else None
    pruned = store.prune(older_than, args.max_bytes, dry_run=args.dry_run)
    verb = "would remove" if args.dry_run else "removed"
    for key, created, size in pruned.removed:
        print(f"{verb} {key}  created {created}  {size:,} bytes")
    freed = sum(size for _, _, size in pruned.removed)
    print(
        f"{verb} {len(pruned.removed):,} shares ({freed:,} bytes); "
        f"{'would leave' if args.dry_run else 'left'} {pruned.shares:,} shares ({pruned.bytes:,} bytes) "
        f"in {store.path}"
    )


def add_shares_command(add) -> None:
    """Register `shares prune` with `add(name, handler, help)` (see `app.cli.build_parser`)."""
    shares = add("shares", None, "look after the share store (<data dir>/shares.sqlite3)")
    actions = shares.add_subparsers(dest="action", required=True, metavar="ACTION")
    help_text = "remove shares older than an age, then the oldest until the store is under a size"
    sub = actions.add_parser("prune", help=help_text, description=help_text)
    sub.set_defaults(handler=cmd_prune)
    sub.add_argument("--older-than", type=float, metavar="DAYS", help="remove shares created more than DAYS ago")
    sub.add_argument(
        "--max-bytes",
        type=int,
        metavar="N",
        help="then remove the oldest until the shares take at most N bytes (compressed)",
    )
    sub.add_argument("--dry-run", action="store_true", help="list what would be removed; remove nothing")
