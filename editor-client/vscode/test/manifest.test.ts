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
    configuration: { properties: Record<string, { default?: unknown; enum?: unknown[]; type?: unknown }> };
  };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
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
    };
    assert.deepEqual(Object.keys(defaults).sort(), [...SERVER_KEYS].sort());
    for (const key of SERVER_KEYS) {
      assert.ok(properties[`ctgls.${key}`], `ctgls.${key} is not contributed`);
      assert.deepEqual(properties[`ctgls.${key}`]?.default, defaults[key], `default of ctgls.${key}`);
    }
    assert.deepEqual(properties['ctgls.algorithm']?.enum, ['dynamosa', 'adynamosa', 'mosa', 'wholesuite']);
    assert.deepEqual(properties['ctgls.junit']?.enum, [null, 4, 5]);
    assert.deepEqual(properties['ctgls.logLevel']?.enum, ['error', 'warn', 'info', 'debug', 'trace']);
    assert.ok(properties['ctgls.server.path']);
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
    assert.match(manifest.dependencies['vscode-languageclient'] ?? '', /^\^9\./);
  });

  it('points main at the compiled extension', () => {
    assert.equal(manifest.main, './out/src/extension.js');
    assert.ok(fs.existsSync(path.join(root, manifest.main)), 'compile first');
  });
});
