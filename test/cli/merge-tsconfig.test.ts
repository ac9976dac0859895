import { describe, expect, it } from 'vitest';
import { mergeTsconfig } from '../../src/generator/edit/tsconfig.js';

describe('mergeTsconfig', () => {
  it('sets NodeNext, strict and outDir, keeping comments, trailing commas and other options', () => {
    const text = `{
  // my settings
  "compilerOptions": {
    "module": "commonjs", // old
    "target": "es2017",
    /* keep */ "jsx": "react-jsx",
    "types": ["jest"],
  },
}
`;
    const merge = mergeTsconfig(text);
    expect(merge.content).toMatchInlineSnapshot(`
      "{
        // my settings
        "compilerOptions": {
          "module": "NodeNext", // old
          "target": "ES2022",
          /* keep */ "jsx": "react-jsx",
          "types": ["jest", "node"],
          "moduleResolution": "NodeNext",
          "strict": true,
          "outDir": "dist",
        },
      }
      "
    `);
    expect(merge.changes).toEqual([
      'compilerOptions.module → "NodeNext"',
      'compilerOptions.moduleResolution → "NodeNext"',
      'compilerOptions.strict → true',
      'compilerOptions.outDir → "dist"',
      'compilerOptions.target → "ES2022"',
      'compilerOptions.types += "node"',
    ]);
  });

  it('adds compilerOptions when there are none', () => {
    expect(mergeTsconfig('{ "include": ["src"] }\n').content).toMatchInlineSnapshot(`
      "{
        "include": [
          "src"
        ],
        "compilerOptions": {
          "module": "NodeNext",
          "moduleResolution": "NodeNext",
          "strict": true,
          "outDir": "dist"
        }
      }
      "
    `);
  });

  it('changes nothing in a tsconfig that already fits, whatever the case of its values', () => {
    const text = '{\n  "compilerOptions": { "module": "nodenext", "moduleResolution": "NodeNext", "strict": true, "outDir": "out" }\n}\n';
    expect(mergeTsconfig(text)).toEqual({ content: text, changes: [] });
  });

  it('refuses text that is not JSONC', () => {
    expect(() => mergeTsconfig('{ "compilerOptions": ')).toThrow(SyntaxError);
  });
});

describe('mergeTsconfig with Windows line endings', () => {
  it('inserts new options with CRLF and keeps the other lines', () => {
    const text = '{\r\n  "compilerOptions": {\r\n    "module": "NodeNext",\r\n    "moduleResolution": "NodeNext",\r\n    "outDir": "out" // here\r\n  }\r\n}\r\n';
    expect(JSON.stringify(mergeTsconfig(text).content)).toBe(
      JSON.stringify('{\r\n  "compilerOptions": {\r\n    "module": "NodeNext",\r\n    "moduleResolution": "NodeNext",\r\n    "outDir": "out", // here\r\n    "strict": true\r\n  }\r\n}\r\n'),
    );
  });

  it('keeps "module": "ESNext" with "moduleResolution": "Bundler" as it is (the seed allows ESNext), setting only what is missing', () => {
    const text = '{\n  "compilerOptions": {\n    "module": "ESNext",\n    "moduleResolution": "bundler",\n    "strict": true\n  }\n}\n';
    const merge = mergeTsconfig(text);
    expect(merge.changes).toEqual(['compilerOptions.outDir → "dist"']);
    expect(merge.content).toContain('"module": "ESNext"');
    expect(merge.content).toContain('"moduleResolution": "bundler"');
  });

  it('still moves "module": "ESNext" without Bundler resolution to NodeNext', () => {
    const merge = mergeTsconfig('{ "compilerOptions": { "module": "ESNext", "moduleResolution": "node10", "strict": true, "outDir": "dist" } }');
    expect(merge.changes).toEqual(['compilerOptions.module → "NodeNext"', 'compilerOptions.moduleResolution → "NodeNext"']);
  });
});
