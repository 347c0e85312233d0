// Starts Swagger UI on /docs. An external file because the CSP (script-src 'self') forbids inline scripts.
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  if (!root || typeof window.SwaggerUIBundle !== "function") {
    return;
  }
  window.ui = window.SwaggerUIBundle({
    url: root.dataset.openapiUrl || "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    layout: "BaseLayout",
    presets: [window.SwaggerUIBundle.presets.apis],
    validatorUrl: null, // never call swagger.io
    tryItOutEnabled: true,
    displayRequestDuration: true,
  });
})();
