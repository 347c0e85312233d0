// The comparison's picker: at most `data-max` tokenizers ticked. At the limit the other boxes
// are disabled and a note says why; a box ticked past it anyway (app.js's "Enter adds the
// match" ticks one by script) is unticked before htmx sends it. Picks that app.js adds from a
// server search are trained tokenizers, which have no chat format: they lose the copied mark.
// Without JavaScript the server does the same: it compares the first ones and names the rest.
(function () {
  "use strict";

  // A ticked model name (data-model) prices a column; it is not one more column, so it does not count.
  function boxesOf(picker) { return picker.querySelectorAll("input[name=tokenizers]:not([data-model])"); }
  function ticked(picker) { return picker.querySelectorAll("input[name=tokenizers]:not([data-model]):checked").length; }

  function sync(picker) {
    var full = ticked(picker) >= Number(picker.dataset.max);
    boxesOf(picker).forEach(function (box) { box.disabled = full && !box.checked; });
    var note = picker.querySelector("[data-role=pick-limit]");
    if (note) note.hidden = !full;
  }

  document.addEventListener("change", function (event) {  // capture: before htmx posts the change
    var box = event.target, picker = box.closest && box.closest("[data-role=picker-boxes]");
    if (!picker || box.name !== "tokenizers") return;
    if (box.checked && ticked(picker) > Number(picker.dataset.max)) {
      box.checked = false;
      event.stopImmediatePropagation();
    }
    sync(picker);
  }, true);

  function watch(picker) {
    new MutationObserver(function (changes) {
      changes.forEach(function (change) {
        change.addedNodes.forEach(function (node) {
          if (!(node instanceof Element) || !node.matches("label.pick")) return;
          delete node.dataset.chat;
          node.querySelectorAll("[data-role=chat-format]").forEach(function (mark) { mark.remove(); });
        });
      });
      sync(picker);
    }).observe(picker, { childList: true, subtree: true });
    sync(picker);
  }

  document.querySelectorAll("[data-role=picker-boxes]").forEach(watch);
})();
