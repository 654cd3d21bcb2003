// Copy buttons for secrets shown once (a new API key, a webhook signing secret). Without
// JavaScript the buttons stay hidden and the secret is plain selectable text.
document.querySelectorAll("button[data-copy]").forEach(function (button) {
  var field = document.getElementById(button.getAttribute("data-copy"));
  if (!field) return;
  field.addEventListener("focus", function () { field.select(); });
  if (!navigator.clipboard) return;
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(field.value).then(function () {
      button.textContent = button.getAttribute("data-done") || button.textContent;
    });
  });
});
