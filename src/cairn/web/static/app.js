// Keyboard: "/" focuses the search box, Escape leaves it. Everything else is plain links,
// buttons and forms, reachable with Tab. htmx is optional: with JavaScript off, all works.
document.addEventListener("keydown", function (event) {
  var target = event.target;
  var typing = target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT");
  if (event.key === "/" && !typing) {
    var box = document.getElementById("q");
    if (box) { event.preventDefault(); box.focus(); box.select(); }
  } else if (event.key === "Escape" && typing) {
    target.blur();
  }
});
