// The entry of dist/vendor/vega.cjs (package.json's bundle script; src/report/vega.ts loads it).
module.exports = { vega: require('vega'), vegaLite: require('vega-lite') };
