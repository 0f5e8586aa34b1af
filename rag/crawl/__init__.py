"""Documentation websites: `crawler` finds a site's pages, `fetch` gets each one, `site_index` indexes them."""
