import JSONLinesPlugin
import JuiceCLI

// `juice` with the plugins shipped with JuiceMaker and this package's own.
await JuiceProcess.main(plugins: JuiceProcess.builtInPlugins + [JSONLinesFile.declaration])
