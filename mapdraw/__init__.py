"""The map as SVG: province shapes grown from the map's positions, units, centres, orders and
results. Used by the web page and ``diplomat render``; depends on the engine only."""
