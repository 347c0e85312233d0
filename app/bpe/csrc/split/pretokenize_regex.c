/* pretokenize.c compiled a second time on the `regex` module's Unicode classes
 * (build/generated/pretokenize_classes_regex.h): pretok_next_regex and pretok_class_regex of
 * pretokenize.h. Nothing else differs, so the two cannot drift apart. */
#define PRETOK_REGEX_CLASSES
#include "pretokenize.c"
