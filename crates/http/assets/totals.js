// Running totals on the document form: a moment after a line, the currency or the customer is
// changed, the form is sent as its "Update totals" button sends it, and the totals of the answer
// (the server's, with the rules saving uses) replace the ones shown. Without JavaScript the
// button does the same.
(function () {
  var form = document.querySelector("form[data-totals]");
  var slot = document.getElementById("running-totals-slot");
  if (!form || !slot || !window.fetch || !window.DOMParser || !window.URLSearchParams) return;
  var timer = null;
  var asked = 0;
  function refresh() {
    var mine = ++asked;
    var body = new URLSearchParams(new FormData(form));
    body.set("action", "totals");
    fetch(form.getAttribute("action"), {
      method: "POST",
      body: body,
      credentials: "same-origin",
      headers: { Accept: "text/html" }
    }).then(function (answer) {
      return answer.text();
    }).then(function (html) {
      if (mine !== asked) return;
      var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("running-totals-slot");
      if (!fresh) return;
      var nodes = Array.prototype.map.call(fresh.childNodes, function (node) {
        return document.importNode(node, true);
      });
      slot.replaceChildren.apply(slot, nodes);
    }).catch(function () {});
  }
  form.addEventListener("input", function (event) {
    var name = event.target.name || "";
    if (name.indexOf("line_items[") !== 0 && name !== "currency" && name !== "customer_id") return;
    clearTimeout(timer);
    timer = setTimeout(refresh, 400);
  });
})();
