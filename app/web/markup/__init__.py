"""What the pages show values as: token markup (tokenview), text and its escapes
(text_escapes), whole numbers (number) and the templates' filters (formatting). Leaves out
the pages and routes that use them (app/web/pages, api, inspector, training)."""
