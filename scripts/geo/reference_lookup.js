#!/usr/bin/env node
// Looks addresses up with a geo database format's own reference reader, for the
// geo unit tests to compare the C++ readers with
// (tests/unit/dns-server/geo/zh_geo_real_data_test.cc). One address per line on
// stdin; one JSON object per line on stdout, in the same order:
//   ipdb READER DB       READER: metowolf's npm `ipdb` (dist/ipdb.cjs.js), default
//                        language: {"fields": [...in metadata order], "bitmask": N}
//                        or {"error": "..."}
//   ip2region READER DB  READER: npm ip2region's dist/lib/ipv4.js:
//                        {"city": ID, "region": "国家|区域|省份|城市|ISP"} or {}
'use strict';
const fs = require('fs');

const [kind, reader, db] = process.argv.slice(2);
const addresses = fs.readFileSync(0, 'utf8').split('\n').filter((line) => line);
const results = [];
if (kind === 'ipdb') {
  const IPDB = require(reader);
  const ipdb = new IPDB(db);
  for (const ip of addresses) {
    const result = ipdb.find(ip);
    results.push(result.code === 0
      ? {fields: ipdb.meta.fields.map((name) => result.data[name]),
         bitmask: result.data.bitmask}
      : {error: result.message});
  }
} else if (kind === 'ip2region') {
  const Ipv4ToRegion = require(reader).default;
  const ip2region = new Ipv4ToRegion(db);
  for (const ip of addresses) {
    const result = ip2region.search(ip, false);
    results.push(result === null ? {} : {city: result.city, region: result.region});
  }
} else {
  process.stderr.write('usage: reference_lookup.js ipdb|ip2region READER DB < addresses\n');
  process.exit(2);
}
fs.writeSync(1, results.map((r) => JSON.stringify(r) + '\n').join(''));
