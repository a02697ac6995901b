//! package.json against the code and the server's contract (docs/lsp-extensions.md).

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { Command } from '../src/commands';
import { SERVER_KEYS } from '../src/settings';

interface Manifest {
  main: string;
  engines: { vscode: string };
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
  contributes: {
    commands: { command: string; title: string; category: string }[];
    configuration: {
      properties: Record<
        string,
        {
          default?: unknown;
          enum?: unknown[];
          type?: unknown;
          description?: string;
          markdownDescription?: string;
          properties?: Record<string, { enum?: unknown[]; markdownDescription?: string }>;
          additionalProperties?: unknown;
        }
      >;
    };
  };
  dependencies?: Record<string, string>;
  devDependencies: Record<string, string>;
  scripts: Record<string, string>;
}

const root = path.resolve(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
const properties = manifest.contributes.configuration.properties;

describe('package.json', () => {
  it('contributes a setting for every server key, with the documented defaults', () => {
    const defaults: Record<string, unknown> = {
      javaHome: null,
      classpath: [],
      budgetSeconds: 10,
      algorithm: 'dynamosa',
      junit: null,
      executionEnabled: true,
      idleDelayMs: 1000,
      logLevel: 'info',
      buildToolEnabled: true,
      buildToolOffline: true,
      mavenExecutable: null,
      mavenSettings: null,
      gradleExecutable: null,
      passEnvironment: [],
      trigger: 'idle',
      diagnostics: {},
      sourceRoots: [],
      testRoots: [],
    };
    assert.deepEqual(Object.keys(defaults).sort(), [...SERVER_KEYS].sort());
    for (const key of SERVER_KEYS) {
      assert.ok(properties[`ctgls.${key}`], `ctgls.${key} is not contributed`);
      assert.deepEqual(properties[`ctgls.${key}`]?.default, defaults[key], `default of ctgls.${key}`);
    }
    assert.deepEqual(properties['ctgls.algorithm']?.enum, ['dynamosa', 'adynamosa', 'mosa', 'wholesuite']);
    assert.deepEqual(properties['ctgls.junit']?.enum, [null, 4, 5]);
    assert.deepEqual(properties['ctgls.logLevel']?.enum, ['error', 'warn', 'info', 'debug', 'trace']);
    assert.deepEqual(properties['ctgls.trigger']?.enum, ['idle', 'save', 'manual']);
    assert.ok(properties['ctgls.server.path']);
  });

  it('gives every setting a description', () => {
    for (const [key, property] of Object.entries(properties)) {
      assert.ok((property.markdownDescription ?? property.description ?? '').length > 20, `${key} has no description`);
    }
  });

  it('offers the diagnostic codes of the contract, each with the five severities', () => {
    const diagnostics = properties['ctgls.diagnostics'];
    assert.equal(diagnostics?.type, 'object');
    assert.equal(diagnostics?.additionalProperties, false);
    assert.deepEqual(Object.keys(diagnostics?.properties ?? {}), [
      'uncovered-branch',
      'undeclared-exception',
      'behaviour-changed',
      'project-test-failed',
      'nondeterministic-input',
      'needs-environment',
      'verification-failed',
    ]);
    for (const [code, property] of Object.entries(diagnostics?.properties ?? {})) {
      assert.deepEqual(property.enum, ['error', 'warning', 'information', 'hint', 'off'], code);
      assert.ok(property.markdownDescription?.includes(code), code);
    }
  });

  it('contributes exactly the commands the extension registers', () => {
    assert.deepEqual(
      manifest.contributes.commands.map((c) => c.command).sort(),
      Object.values(Command).sort(),
    );
    for (const command of manifest.contributes.commands) {
      assert.equal(command.category, 'ctgls');
    }
  });

  it('is limited in untrusted workspaces, with the settings that name programs restricted', () => {
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.deepEqual(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations, [
      'ctgls.server.path',
      'ctgls.javaHome',
      'ctgls.classpath',
      'ctgls.mavenExecutable',
      'ctgls.mavenSettings',
      'ctgls.gradleExecutable',
      'ctgls.passEnvironment',
    ]);
  });

  it('activates on Java and on Java build files', () => {
    assert.ok(manifest.activationEvents.includes('onLanguage:java'));
    assert.ok(manifest.activationEvents.includes('workspaceContains:pom.xml'));
    assert.ok(manifest.activationEvents.includes('workspaceContains:build.gradle'));
  });

  it('needs the VS Code that has the Test Coverage API, and types no newer than that', () => {
    assert.equal(manifest.engines.vscode, '^1.88.0');
    assert.match(manifest.devDependencies['@types/vscode'] ?? '', /^~1\.88\./);
    assert.match(manifest.devDependencies['vscode-languageclient'] ?? '', /^\^9\./);
  });

  it('points main at the esbuild bundle, which the .vsix ships alone (no runtime dependencies)', () => {
    assert.equal(manifest.main, './out/extension.js');
    assert.ok(fs.existsSync(path.join(root, manifest.main)), 'npm run bundle first');
    assert.equal(manifest.dependencies, undefined, 'the bundle contains the libraries: devDependencies only');
    assert.match(manifest.scripts.bundle ?? '', /^esbuild \.\/src\/extension\.ts --bundle --outfile=out\/extension\.js /);
    assert.match(manifest.scripts.package ?? '', /--no-dependencies/);
    const ignored = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n');
    assert.deepEqual(
      ignored.filter((line) => line && !line.startsWith('#')),
      ['**', '!package.json', '!README.md', '!out/extension.js'],
    );
  });
});
